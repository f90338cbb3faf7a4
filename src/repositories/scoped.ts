// The one place that scopes queries by account and mode. Repositories build their SQL on these
// helpers, so no query can forget the scope. The scoped table is aliased `t` in every query.
import type { Queryable, Row } from '../db/database.ts';
import { ApiError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';

export interface ScopedSource {
  table: string;
  /** select list, using `t` for the table */
  columns: string;
  /** joins after `from <table> t` */
  joins?: string;
  /** whether the table keeps tombstones in deleted_at */
  tombstones?: boolean;
}

/** `t.account_id = $1 and t.mode = $2`, with the scope's values as the first two params. */
export function scopeWhere(scope: Scope): { sql: string; params: unknown[] } {
  return { sql: 't.account_id = $1 and t.mode = $2', params: [scope.accountId, scope.mode] };
}

/** One row by id inside the scope, tombstones included (deleted_at tells the caller to answer 410). */
export async function findScoped<T extends Row>(q: Queryable, src: ScopedSource, scope: Scope, id: string, lock = false): Promise<T | undefined> {
  const w = scopeWhere(scope);
  const deleted = src.tombstones ? ', t.deleted_at' : '';
  const rows = await q.query<T>(
    `select ${src.columns}${deleted} from ${src.table} t ${src.joins ?? ''} where ${w.sql} and t.id = $3${lock ? ' for update of t' : ''}`,
    [...w.params, id],
    { prepare: true }, // one text per table and lock flag: the hot read of every GET by id
  );
  return rows[0];
}

/**
 * A page of live rows, newest first, starting at `from` (inclusive). `filters` are extra
 * `column = value` conditions on t.
 */
export async function pageScoped<T extends Row & { id: string }>(
  q: Queryable,
  src: ScopedSource,
  scope: Scope,
  req: PageRequest,
  filters: Record<string, unknown> = {},
): Promise<Page<T>> {
  const w = scopeWhere(scope);
  const params = [...w.params];
  let where = w.sql + (src.tombstones ? ' and t.deleted_at is null' : '');
  for (const [col, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    params.push(value);
    where += ` and t.${col} = $${params.length}`;
  }
  let startSeq: number | undefined;
  if (req.from) {
    const cursor = await q.query<{ seq: number }>(`select t.seq from ${src.table} t where ${where} and t.id = $${params.length + 1}`, [...params, req.from]);
    if (!cursor[0]) throw ApiError.badRequest(`Field from names no item of this list: ${req.from}`, 'from');
    startSeq = cursor[0].seq;
  }
  const fromCond = startSeq === undefined ? '' : ` and t.seq <= ${Number(startSeq)}`;
  const rows = await q.query<T & { seq: number }>(
    `select ${src.columns}, t.seq from ${src.table} t ${src.joins ?? ''} where ${where}${fromCond} order by t.seq desc limit ${req.limit + 1}`,
    params,
  );
  const page: Page<T> = { items: rows.slice(0, req.limit) };
  if (rows.length > req.limit) page.next = rows[req.limit].id;
  if (rows.length > 0) {
    const newer = await q.query<{ id: string }>(
      `select t.id from ${src.table} t where ${where} and t.seq > ${Number(rows[0].seq)} order by t.seq asc limit ${req.limit}`,
      params,
    );
    if (newer.length) page.previous = newer[newer.length - 1].id;
  }
  return page;
}
