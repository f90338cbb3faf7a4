// Webhook endpoints, scoped like every business row. Secrets are read only by signing
// (secrets()) and written only at creation and rotation; no list or find returns them.
import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import type { Webhook, WebhookEventType } from '../domain/webhooks.ts';
import { scopedReads, scopeWhereId, type ScopedSource } from './scoped.ts';

const source: ScopedSource = { table: 'webhooks', columns: 't.id, t.url, t.events, t.enabled, t.failing_since, t.disabled_reason, t.created_at' };

/** A row of `source`. */
interface WebhookRow {
  id: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  failing_since: Date | string | null;
  disabled_reason: string | null;
  created_at: Date | string;
}

const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  url: r.url,
  events: r.events,
  enabled: r.enabled,
  failingSince: r.failing_since ? new Date(r.failing_since) : null,
  disabledReason: r.disabled_reason ?? null,
  createdAt: new Date(r.created_at),
});

export type WebhookPatch = Partial<Pick<Webhook, 'url' | 'events' | 'enabled'>>;

/** The secrets that sign now: the current one, and the one it replaced while its overlap lasts. */
export interface SigningSecrets {
  current: string;
  previous: string | null;
}

export class WebhookRepository extends scopedReads(source, toWebhook) {
  async insert(q: Queryable, scope: Scope, w: { id: string; url: string; events: WebhookEventType[]; secret: string }): Promise<Webhook> {
    const [r] = await q.query<WebhookRow>(
      `insert into webhooks as t (id, account_id, mode, url, events, secret) values ($1, $2, $3, $4, $5, $6) returning ${source.columns}`,
      [w.id, scope.accountId, scope.mode, w.url, w.events, w.secret],
    );
    return toWebhook(r);
  }

  /** Re-enabling (enabled: true) also forgets the failures that disabled it. */
  async update(q: Queryable, scope: Scope, id: string, patch: WebhookPatch): Promise<Webhook | undefined> {
    const w = scopeWhereId(scope, id);
    const [r] = await q.query<WebhookRow>(
      `update webhooks t set url = coalesce($4, t.url), events = coalesce($5::text[], t.events), enabled = coalesce($6, t.enabled),
         failing_since = case when $6 then null else t.failing_since end, disabled_reason = case when $6 then null else t.disabled_reason end,
         updated_at = now()
       where ${w.sql} returning ${source.columns}`,
      [...w.params, patch.url ?? null, patch.events ?? null, patch.enabled ?? null],
    );
    return r && toWebhook(r);
  }

  async remove(q: Queryable, scope: Scope, id: string): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    return (await q.query(`delete from webhooks t where ${w.sql} returning 1 as x`, w.params)).length > 0;
  }

  /** The new secret signs from now on; the old one keeps signing beside it for `overlapSeconds`. */
  async rotateSecret(q: Queryable, scope: Scope, id: string, secret: string, overlapSeconds: number): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    const rows = await q.query(
      `update webhooks t set previous_secret = t.secret, previous_secret_until = now() + make_interval(secs => $5::int), secret = $4, updated_at = now()
       where ${w.sql} returning 1 as x`,
      [...w.params, secret, overlapSeconds],
    );
    return rows.length > 0;
  }

  async secrets(q: Queryable, scope: Scope, id: string): Promise<SigningSecrets | undefined> {
    const w = scopeWhereId(scope, id);
    const [r] = await q.query<{ secret: string; previous: string | null }>(
      `select t.secret, case when t.previous_secret_until > now() then t.previous_secret end as previous from webhooks t where ${w.sql}`,
      w.params,
      { prepare: true },
    );
    return r && { current: r.secret, previous: r.previous ?? null };
  }

  /** Every event type some enabled endpoint of the scope wants (what WebhookSubscriptions remembers). */
  async subscribedTypes(q: Queryable, scope: Scope): Promise<string[]> {
    const rows = await q.query<{ type: string }>(
      `select distinct unnest(t.events) as type from webhooks t where t.account_id = $1 and t.mode = $2 and t.enabled`,
      [scope.accountId, scope.mode],
      { prepare: true },
    );
    return rows.map((r) => r.type);
  }

  /** A delivery succeeded: the endpoint's run of failures is over. */
  async recordSuccess(q: Queryable, scope: Scope, id: string): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(`update webhooks t set failing_since = null where ${w.sql} and t.failing_since is not null`, w.params);
  }

  /**
   * A delivery failed: the run of failures starts now if none was going on; an endpoint failing
   * for `disableAfterMs` in a row is disabled. Returns whether it is enabled still.
   */
  async recordFailure(q: Queryable, scope: Scope, id: string, disableAfterMs: number, reason: string): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    const [r] = await q.query<{ enabled: boolean }>(
      `update webhooks t set failing_since = coalesce(t.failing_since, now()),
         enabled = t.enabled and coalesce(t.failing_since, now()) > now() - make_interval(secs => $4::float8 / 1000),
         disabled_reason = case when t.enabled and coalesce(t.failing_since, now()) <= now() - make_interval(secs => $4::float8 / 1000) then $5 else t.disabled_reason end
       where ${w.sql} returning t.enabled`,
      [...w.params, disableAfterMs, reason],
    );
    return r?.enabled ?? false;
  }

  /**
   * For operators' metrics, across accounts (no scope: nothing of an endpoint but its id leaves):
   * the enabled endpoints failing now, the longest-failing first, at most `limit`.
   */
  async failingEndpoints(q: Queryable, limit = 100): Promise<{ endpoint: string; account: string; mode: string; seconds: number }[]> {
    const rows = await q.query<{ id: string; account_id: string; mode: string; seconds: number | string }>(
      `select id, account_id, mode, extract(epoch from now() - failing_since)::float8 as seconds from webhooks
        where failing_since is not null and enabled order by failing_since limit $1`,
      [limit],
    );
    return rows.map((r) => ({ endpoint: r.id, account: r.account_id, mode: r.mode, seconds: Number(r.seconds) }));
  }
}
