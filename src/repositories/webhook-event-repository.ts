// The event outbox and the delivery log. Events and attempts are scoped rows; the dispatcher's
// and the backlog gauge's queries are system-wide and marked as such.
import type { Queryable } from '../db/database.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import type { DeliveryAttempt } from '../domain/webhooks.ts';
import { findScoped, pageScoped, scopeWhereId, type ScopedSource } from './scoped.ts';

const attempts: ScopedSource = {
  table: 'webhook_attempts',
  columns: 't.id, t.event_id, t.event_type, t.attempted_at, t.status_code, t.duration_ms, t.response, t.error, t.success',
};

/** A row of `attempts`. */
interface AttemptRow {
  id: string;
  event_id: string;
  event_type: string;
  attempted_at: Date | string;
  status_code: number | null;
  duration_ms: number;
  response: string | null;
  error: string | null;
  success: boolean;
}

/** A delivery as the dispatcher's statements return it. */
interface DeliveryRow {
  event_id: string;
  webhook_id: string;
  account_id: string;
  mode: Mode;
}

const toAttempt = (r: AttemptRow): DeliveryAttempt => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  attemptedAt: new Date(r.attempted_at),
  statusCode: r.status_code ?? null,
  durationMs: r.duration_ms,
  response: r.response ?? null,
  error: r.error ?? null,
  success: r.success,
});

/** One delivery to queue: an event for one endpoint (references only, like every job). */
export interface DeliveryRef {
  eventId: string;
  webhookId: string;
  accountId: string;
  mode: Mode;
}

/** What a delivery attempt needs: the payload, where it goes and how it stands. */
export interface DeliveryTask {
  type: string;
  body: string;
  createdAt: Date;
  url: string;
  enabled: boolean;
  state: 'pending' | 'delivered' | 'failed';
}

export interface NewAttempt extends Omit<DeliveryAttempt, 'attemptedAt'> {
  webhookId: string;
}

export class WebhookEventRepository {
  async insert(q: Queryable, scope: Scope, e: { id: string; type: string; body: string; webhookId?: string }): Promise<void> {
    await q.query(
      'insert into webhook_events (id, account_id, mode, type, body, webhook_id) values ($1, $2, $3, $4, $5, $6)',
      [e.id, scope.accountId, scope.mode, e.type, e.body, e.webhookId ?? null],
      { prepare: true },
    );
  }

  /** The event's type, or undefined when the scope has no such event. */
  async typeOf(q: Queryable, scope: Scope, id: string): Promise<string | undefined> {
    return (await findScoped<{ type: string }>(q, { table: 'webhook_events', columns: 't.type' }, scope, id))?.type;
  }

  /**
   * System-wide (dispatcher): takes up to `limit` undispatched events (skipping those another
   * dispatcher holds), creates a pending delivery for each endpoint of the event's account and
   * mode that wants it, marks the events dispatched and returns the deliveries to queue.
   */
  async claimUndispatched(q: Queryable, limit: number): Promise<{ events: number; deliveries: DeliveryRef[] }> {
    const rows = await q.query<Omit<DeliveryRow, 'webhook_id'> & { webhook_id: string | null }>(
      `with batch as (
         select id from webhook_events where dispatched_at is null order by seq limit ${Math.floor(limit)} for update skip locked
       ), marked as (
         update webhook_events e set dispatched_at = now() from batch where e.id = batch.id
         returning e.id, e.account_id, e.mode, e.type, e.webhook_id
       ), ins as (
         insert into webhook_deliveries (event_id, webhook_id)
         select m.id, w.id from marked m join webhooks w on w.account_id = m.account_id and w.mode = m.mode and w.enabled
           and (w.id = m.webhook_id or (m.webhook_id is null and m.type = any(w.events)))
         on conflict do nothing returning event_id, webhook_id
       )
       select m.id as event_id, ins.webhook_id, m.account_id, m.mode from marked m left join ins on ins.event_id = m.id`,
    );
    const deliveries = rows.flatMap((r) => (r.webhook_id ? [{ eventId: r.event_id, webhookId: r.webhook_id, accountId: r.account_id, mode: r.mode }] : []));
    return { events: new Set(rows.map((r) => r.event_id)).size, deliveries };
  }

  /**
   * System-wide (dispatcher): pending deliveries untouched for `olderThanMs` (their process may
   * have died between the commit and the enqueue), touched again and returned to be queued once
   * more; a delivery whose job still exists is not queued twice (same job id).
   */
  async touchStale(q: Queryable, olderThanMs: number, limit: number): Promise<DeliveryRef[]> {
    const rows = await q.query<DeliveryRow>(
      `with stale as (
         select event_id, webhook_id from webhook_deliveries where state = 'pending' and updated_at < now() - make_interval(secs => $1::float8 / 1000)
         order by updated_at limit ${Math.floor(limit)} for update skip locked
       ), touched as (
         update webhook_deliveries d set updated_at = now() from stale where d.event_id = stale.event_id and d.webhook_id = stale.webhook_id
         returning d.event_id, d.webhook_id
       )
       select t.event_id, t.webhook_id, e.account_id, e.mode from touched t join webhook_events e on e.id = t.event_id`,
      [olderThanMs],
    );
    return rows.map((r) => ({ eventId: r.event_id, webhookId: r.webhook_id, accountId: r.account_id, mode: r.mode }));
  }

  /** Makes an event's deliveries pending again (redeliver); returns them, none when it had none. */
  async resetDeliveries(q: Queryable, scope: Scope, eventId: string): Promise<DeliveryRef[]> {
    const w = scopeWhereId(scope, eventId);
    const rows = await q.query<{ webhook_id: string }>(
      `update webhook_deliveries d set state = 'pending', updated_at = now() from webhook_events t, webhooks h
       where d.event_id = t.id and h.id = d.webhook_id and h.enabled and ${w.sql} returning d.webhook_id`,
      w.params,
    );
    return rows.map((r) => ({ eventId, webhookId: r.webhook_id, accountId: scope.accountId, mode: scope.mode }));
  }

  /** Undefined when the endpoint or the event is gone. Test events never meet live endpoints here either. */
  async task(q: Queryable, ref: DeliveryRef): Promise<DeliveryTask | undefined> {
    const [r] = await q.query<Omit<DeliveryTask, 'createdAt'> & { created_at: Date | string }>(
      `select e.type, e.body, e.created_at, w.url, w.enabled, d.state from webhook_deliveries d
       join webhook_events e on e.id = d.event_id join webhooks w on w.id = d.webhook_id
       where d.event_id = $1 and d.webhook_id = $2 and e.account_id = $3 and e.mode = $4 and w.account_id = e.account_id and w.mode = e.mode`,
      [ref.eventId, ref.webhookId, ref.accountId, ref.mode],
      { prepare: true },
    );
    return r && { type: r.type, body: r.body, createdAt: new Date(r.created_at), url: r.url, enabled: r.enabled, state: r.state };
  }

  async setState(q: Queryable, ref: DeliveryRef, state: DeliveryTask['state']): Promise<void> {
    await q.query(`update webhook_deliveries set state = $3, updated_at = now() where event_id = $1 and webhook_id = $2`, [ref.eventId, ref.webhookId, state], {
      prepare: true,
    });
  }

  async insertAttempt(q: Queryable, scope: Scope, a: NewAttempt): Promise<void> {
    await q.query(
      `insert into webhook_attempts (id, account_id, mode, webhook_id, event_id, event_type, status_code, duration_ms, response, error, success)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [a.id, scope.accountId, scope.mode, a.webhookId, a.eventId, a.eventType, a.statusCode, a.durationMs, a.response, a.error, a.success],
      { prepare: true },
    );
  }

  async attempts(q: Queryable, scope: Scope, webhookId: string, req: PageRequest): Promise<Page<DeliveryAttempt>> {
    const page = await pageScoped<AttemptRow>(q, attempts, scope, req, { webhook_id: webhookId });
    return { ...page, items: page.items.map(toAttempt) };
  }

  /** System-wide (metrics): seconds since the oldest event not yet delivered nor given up was recorded. */
  async oldestUndeliveredAgeSeconds(q: Queryable): Promise<number> {
    const [r] = await q.query<{ age: number | string | null }>(
      `select extract(epoch from now() - least(
         (select min(created_at) from webhook_events where dispatched_at is null),
         (select min(e.created_at) from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.state = 'pending')
       ))::float8 as age`,
    );
    return r?.age == null ? 0 : Number(r.age);
  }
}
