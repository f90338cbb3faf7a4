// One small interface over PostgreSQL (pg) and embedded PGlite: the same SQL runs on both.
import { DomainError } from '../domain/errors.ts';

// biome-ignore lint/suspicious/noExplicitAny: rows are typed by each query's generic; this is the default
export type Row = Record<string, any>;

export interface QueryOptions {
  /**
   * Run as a named prepared statement (PostgreSQL; PGlite ignores it): the server plans the
   * statement once per connection instead of on every call. Only for fixed SQL text on hot
   * paths; text built from values would pile up statements on every connection.
   */
  prepare?: boolean;
}

export interface Queryable {
  query<T extends Row = Row>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
}

export interface Transaction extends Queryable {
  /** Runs a script of several statements, without parameters (a migration file). */
  exec(script: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** bytea comes back as Buffer from pg and as Uint8Array from PGlite. */
function toBuffer(v: Uint8Array | Buffer | null): Buffer | null {
  if (v == null) return null;
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

const PIECE = 32 * 1024;

/**
 * One bytea value read as rows of 32 KB pieces. Read whole, it comes back as one hex text field
 * twice its size, and past 128 KB that string is a V8 large object with fresh memory every time
 * (page faults are dear on our VMs); pieces are not. 100 KB read back cost 0.6-0.7 ms of Node CPU
 * instead of 0.9-1.2 ms, 1 MB 5.8 ms instead of 8.7 (and half the wall time).
 * `source` is a statement whose one row has a bytea column `content`: the result is undefined
 * without a row, null when `content` is null.
 */
export async function readBytes(q: Queryable, source: string, params: unknown[]): Promise<Buffer | null | undefined> {
  const rows = await q.query<{ missing: boolean; piece: Uint8Array | null }>(
    `select b.content is null as missing, substring(b.content from g for ${PIECE}) as piece
     from (${source}) b left join lateral generate_series(1, length(b.content), ${PIECE}) g on true order by g`,
    params,
    { prepare: true },
  );
  if (rows.length === 0) return undefined;
  if (rows[0].missing) return null;
  return Buffer.concat(rows.flatMap((r) => (r.piece ? [toBuffer(r.piece)!] : [])));
}

/**
 * The database cannot be reached at the moment (restarting, refusing connections, a connection cut
 * under a statement): a passing state. HTTP answers it with 503 and Retry-After, FTP with 451,
 * workers retry the job. The original error is its cause, for the logs.
 */
export class DatabaseUnavailable extends DomainError {
  constructor(cause: unknown) {
    super('unavailable', 'The database is not reachable at the moment; please retry shortly');
    this.cause = cause;
  }
}
