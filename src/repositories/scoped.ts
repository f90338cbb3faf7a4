// The one place that scopes queries by account and mode. Repositories build their SQL on these
// helpers, so no query can forget the scope. The scoped table is aliased `t` in every query.
import type { Queryable, Row } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
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

/**
 * Several scopes in one statement: rows `s` (account_id, mode, each of `more`'s columns, and n, the
 * 1-based position) to join the scoped table on with `on`; the params are one array per column.
 */
export function scopesEach(scopes: Scope[], more: Record<string, string[]> = {}): { from: string; on: string; params: unknown[] } {
  const names = Object.keys(more);
  const arrays = [scopes.map((x) => x.accountId), scopes.map((x) => x.mode), ...names.map((k) => more[k])];
  return {
    from: `unnest(${arrays.map((_, i) => `$${i + 1}::text[]`).join(', ')}) with ordinality as s(account_id, mode, ${names.map((k) => `${k}, `).join('')}n)`,
    on: 't.account_id = s.account_id and t.mode = s.mode',
    params: arrays,
  };
}

const WHERE_ID = "t.id = $3 and t.account_id || '' = $1 and t.mode = $2";
const whereIdParams = (scope: Scope, id: string) => [scope.accountId, scope.mode, id];

/**
 * One row by its id inside the scope: `$3` is the id, `$1` and `$2` the account and the mode. Ids
 * are unique across accounts, so the primary key is always the right index; the account is compared
 * as an expression so that no index leading with account_id can compete with it when the planner's
 * statistics lag behind (an account that grew fast since the last analyze).
 */
export function scopeWhereId(scope: Scope, id: string): { sql: string; params: unknown[] } {
  return { sql: WHERE_ID, params: whereIdParams(scope, id) };
}

/** One row by id inside the scope, tombstones included (deleted_at tells the caller to answer 410). */
export async function findScoped<T extends Row>(q: Queryable, src: ScopedSource, scope: Scope, id: string, lock = false): Promise<T | undefined> {
  const rows = await q.query<T>(findSql(src, lock), whereIdParams(scope, id), { prepare: true }); // the hot read of every GET by id
  return rows[0];
}

// one text per source and lock flag, built once: the driver names prepared statements by their text
const findTexts = new WeakMap<ScopedSource, [string?, string?]>();
function findSql(src: ScopedSource, lock: boolean): string {
  let texts = findTexts.get(src);
  if (!texts) findTexts.set(src, (texts = []));
  const i = lock ? 1 : 0;
  return (texts[i] ??=
    `select ${src.columns}${src.tombstones ? ', t.deleted_at' : ''} from ${src.table} t ${src.joins ?? ''} where ${WHERE_ID}${lock ? ' for update of t' : ''}`);
}

/** A row of a table with tombstones: the record, and whether it was deleted (410 rather than 404). */
export type Found<T> = { record: T; deleted: boolean } | undefined;

export async function findWithTombstone<R extends Row, T>(
  q: Queryable,
  src: ScopedSource,
  scope: Scope,
  id: string,
  map: (r: R) => T,
  lock = false,
): Promise<Found<T>> {
  const r = await findScoped<R & { deleted_at?: Date | null }>(q, src, scope, id, lock);
  return r && { record: map(r), deleted: r.deleted_at != null };
}

/** Sets the patch's defined fields on one live row in the scope; `column` names a field's column. */
export async function updateScoped<R extends Row = Row>(
  q: Queryable,
  table: string,
  scope: Scope,
  id: string,
  patch: object,
  column: (field: string) => string,
): Promise<R[]> {
  const w = scopeWhereId(scope, id);
  const params: unknown[] = [...w.params];
  const sets = ['updated_at = now()'];
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    params.push(v);
    sets.push(`${column(k)} = $${params.length}`);
  }
  return q.query<R>(`update ${table} t set ${sets.join(', ')} where ${w.sql} and t.deleted_at is null returning *`, params);
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
  const live = src.tombstones ? ' and t.deleted_at is null' : '';
  const active = Object.entries(filters).filter(([, v]) => v !== undefined);
  const values = active.map(([, v]) => v);
  // the filters' conditions, their params numbered from `first`
  const filterSql = (first: number) => active.map(([col], i) => ` and t.${col} = $${first + i}`).join('');
  const where = w.sql + live + filterSql(3);
  const params = [...w.params, ...values];
  let startSeq: number | undefined;
  if (req.from) {
    const byId = scopeWhereId(scope, req.from);
    const cursor = await q.query<{ seq: number }>(`select t.seq from ${src.table} t where ${byId.sql}${live}${filterSql(4)}`, [...byId.params, ...values]);
    if (!cursor[0]) throw DomainError.invalid(`Field from names no item of this list: ${req.from}`, 'from');
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

/** Read by id and page through a scoped table whose rows `R` become `T` (a repository's base class). */
export function scopedReads<R extends Row & { id: string }, T>(src: ScopedSource, map: (r: R) => T) {
  return class ScopedReads {
    async find(q: Queryable, scope: Scope, id: string): Promise<T | undefined> {
      const r = await findScoped<R>(q, src, scope, id);
      return r && map(r);
    }

    async page(q: Queryable, scope: Scope, req: PageRequest): Promise<Page<T>> {
      const page = await pageScoped<R>(q, src, scope, req);
      return { ...page, items: page.items.map(map) };
    }
  };
}
