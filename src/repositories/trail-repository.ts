// The trail's table (migration 0025): insert and read only. A trigger refuses every UPDATE and
// every DELETE but the retention purge's, which marks its own transaction (trail.purge).
import type { Queryable, Transaction } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode } from '../domain/scope.ts';
import type { TrailActorKind, TrailEntry } from '../domain/trail.ts';

interface TrailRow {
  seq: number;
  id: string;
  account_id: string;
  mode: Mode | null;
  at: Date;
  actor_kind: TrailActorKind;
  actor_id: string | null;
  actor_label: string;
  address: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | string;
}

export interface TrailInsert {
  id: string;
  accountId: string;
  mode: Mode | null;
  actorKind: TrailActorKind;
  actorId: string | null;
  actorLabel: string;
  address: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
}

export interface TrailFilter {
  accountId: string;
  /** one mode and the account-wide entries; undefined: every entry of the account */
  mode?: Mode;
  /** an action (`user.invited`) or a family of them (`user`) */
  action?: string;
  actorKind?: TrailActorKind;
  /** inclusive bounds on `at` */
  since?: Date;
  until?: Date;
}

const toEntry = (r: TrailRow): TrailEntry => ({
  id: r.id,
  accountId: r.account_id,
  mode: r.mode,
  at: r.at.toISOString(),
  actor: { kind: r.actor_kind, id: r.actor_id, label: r.actor_label },
  address: r.address,
  action: r.action,
  target: r.target,
  detail: typeof r.detail === 'string' ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail,
});

function whereOf(f: TrailFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.accountId];
  const conds = ['t.account_id = $1'];
  const add = (sql: (n: number) => string, v: unknown) => {
    params.push(v);
    conds.push(sql(params.length));
  };
  if (f.mode) add((n) => `(t.mode = $${n} or t.mode is null)`, f.mode);
  if (f.action) add((n) => (f.action!.includes('.') ? `t.action = $${n}` : `t.action like $${n} || '.%'`), f.action);
  if (f.actorKind) add((n) => `t.actor_kind = $${n}`, f.actorKind);
  if (f.since) add((n) => `t.at >= $${n}`, f.since);
  if (f.until) add((n) => `t.at <= $${n}`, f.until);
  return { sql: conds.join(' and '), params };
}

export class TrailRepository {
  async insert(q: Queryable, e: TrailInsert): Promise<TrailEntry> {
    const [row] = await q.query<TrailRow>(
      `insert into trail_entries (id, account_id, mode, actor_kind, actor_id, actor_label, address, action, target, detail)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb) returning *`,
      [e.id, e.accountId, e.mode, e.actorKind, e.actorId, e.actorLabel, e.address, e.action, e.target, JSON.stringify(e.detail)],
    );
    return toEntry(row);
  }

  /** A page of the filter's entries, newest first, from the entry `req.from` (inclusive). */
  async page(q: Queryable, f: TrailFilter, req: PageRequest): Promise<Page<TrailEntry>> {
    const w = whereOf(f);
    let fromCond = '';
    if (req.from) {
      const [cursor] = await q.query<{ seq: number }>(`select t.seq from trail_entries t where ${w.sql} and t.id = $${w.params.length + 1}`, [
        ...w.params,
        req.from,
      ]);
      if (!cursor) throw DomainError.invalid(`Field from names no item of this list: ${req.from}`, 'from');
      fromCond = ` and t.seq <= ${Number(cursor.seq)}`;
    }
    const rows = await q.query<TrailRow>(`select * from trail_entries t where ${w.sql}${fromCond} order by t.seq desc limit ${req.limit + 1}`, w.params);
    const page: Page<TrailEntry> = { items: rows.slice(0, req.limit).map(toEntry) };
    if (rows.length > req.limit) page.next = rows[req.limit].id;
    if (rows.length > 0) {
      const newer = await q.query<{ id: string }>(
        `select t.id from trail_entries t where ${w.sql} and t.seq > ${Number(rows[0].seq)} order by t.seq asc limit ${req.limit}`,
        w.params,
      );
      if (newer.length) page.previous = newer[newer.length - 1].id;
    }
    return page;
  }

  /** Every entry of the filter, newest first, at most `max` (the CSV export). */
  async all(q: Queryable, f: TrailFilter, max: number): Promise<TrailEntry[]> {
    const w = whereOf(f);
    return (await q.query<TrailRow>(`select * from trail_entries t where ${w.sql} order by t.seq desc limit ${Number(max)}`, w.params)).map(toEntry);
  }

  /** Deletes entries older than `before`, at most `batch` of them; how many went. */
  /** (in a transaction: the purge's mark is local to it) */
  async purgeBefore(q: Transaction, before: Date, batch: number): Promise<number> {
    await q.query("select set_config('trail.purge', 'on', true)");
    const rows = await q.query<{ id: string }>(
      `delete from trail_entries where id in (select id from trail_entries where at < $1 order by at limit ${Number(batch)}) returning id`,
      [before],
    );
    return rows.length;
  }
}
