import postgres from 'postgres';
import { DatabaseUnavailable, type Database, type Queryable, type QueryOptions, type Row } from './database.ts';

// SQLSTATEs that say the server is away or going away, not that it refused the statement:
// 57P01 admin_shutdown (a fast restart), 57P02 crash_shutdown, 57P03 cannot_connect_now
// (starting or shutting down), class 08 connection exceptions, 53300 too_many_connections.
const AWAY = /^(57P0[123]|08...|53300)$/;
const SOCKET = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'];
// postgres.js's own codes for a connection that closed or could not open
const DRIVER = ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'];

/** Whether `e` says the database cannot be reached at the moment (as opposed to refusing a statement). */
export function databaseAway(e: unknown): boolean {
  if (e instanceof postgres.PostgresError) return AWAY.test(e.code ?? '');
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && (SOCKET.includes(code) || DRIVER.includes(code));
}

const translate = (e: unknown) => (databaseAway(e) ? new DatabaseUnavailable(e) : e);

export interface PostgresOptions {
  poolSize: number;
  /**
   * 'transaction' when a pooler in transaction mode (PgBouncer pool_mode=transaction) stands in
   * front: a server connection serves other clients between transactions, so a named prepared
   * statement made on it is missing (or already there) on the next one. Statements then go
   * unnamed (still parameterised, planned on each call).
   */
  pooler?: 'none' | 'transaction';
  /** a connection's error outside a query (a server restart): logged, never fatal */
  onConnectionError?: (err: Error) => void;
}

/** `options` as a number is the pool size, with no pooler in front. */
export function openPostgres(url: string, options: number | PostgresOptions): Database {
  const opts: PostgresOptions = typeof options === 'number' ? { poolSize: options } : options;
  const named = opts.pooler !== 'transaction';
  const sql = postgres(url, {
    max: opts.poolSize,
    prepare: named,
    onnotice: () => {},
    // as pg gives them, and as the repositories expect: undefined is null, int8 a number, json
    // text passes as it is, a string for a date column is PostgreSQL's to read
    transform: { undefined: null },
    types: {
      int8: { to: 20, from: [20], serialize: (v: unknown) => String(v), parse: (v: string) => Number(v) },
      json: { to: 114, from: [114, 3802], serialize: (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v)), parse: (v: string) => JSON.parse(v) },
      date: { to: 1184, from: [1082, 1114, 1184], serialize: (v: unknown) => (v instanceof Date ? v.toISOString() : String(v)), parse: (v: string) => new Date(v) },
    } as any,
  });
  const run = async <T extends Row>(q: Pick<postgres.Sql, 'unsafe'>, text: string, params?: unknown[], o?: QueryOptions): Promise<T[]> => {
    try {
      return (await q.unsafe(text, (params ?? []) as any[], { prepare: !!o?.prepare && named })) as unknown as T[];
    } catch (e) {
      throw translate(e);
    }
  };
  return {
    kind: 'postgres',
    query: (text, params, o) => run(sql, text, params, o),
    async transaction(fn) {
      try {
        return (await sql.begin((tx) =>
          fn({
            query: (text, params, o) => run(tx, text, params, o),
            // without parameters it goes over the simple protocol, which takes several statements
            exec: async (script) => void (await run(tx, script)),
          }),
        )) as any;
      } catch (e) {
        throw translate(e);
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

export type { Queryable };
