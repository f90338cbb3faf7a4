// One small interface over PostgreSQL (pg) and embedded PGlite: the same SQL runs on both.

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
export function toBuffer(v: Uint8Array | Buffer | null): Buffer | null {
  if (v == null) return null;
  return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}
