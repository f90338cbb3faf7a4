// The PostgreSQL adapter on pg, through its public API only: rows are read as arrays (rowMode
// 'array') and made into objects here, a statement marked `prepare` runs as a named prepared
// statement. porsager's postgres was measured against it (docs/architecture.md) and not kept.
import pg from 'pg';
import { createHash } from 'node:crypto';
import { DatabaseUnavailable, type Database, type Queryable, type QueryOptions, type Row } from './database.ts';

// A prepared statement's name is derived from its text, so the same SQL maps to the same name.
const names = new Map<string, string>();
const statementName = (sql: string) => {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `s_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`));
  return name;
};

// int8 (counts, sums) as numbers: every value we store fits in 2^53.
const types = {
  // biome-ignore lint/suspicious/noExplicitAny: pg's type-parser typings do not name the override's format argument
  getTypeParser: (oid: number, format?: any) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)),
};

// SQLSTATEs that say the server is away or going away, not that it refused the statement:
// 57P01 admin_shutdown (a fast restart), 57P02 crash_shutdown, 57P03 cannot_connect_now
// (starting or shutting down), class 08 connection exceptions, 53300 too_many_connections.
const AWAY = /^(57P0[123]|08...|53300)$/;

/** Whether `e` says the database cannot be reached at the moment (as opposed to refusing a statement). */
export function databaseAway(e: unknown): boolean {
  if (e instanceof pg.DatabaseError) return AWAY.test(e.code ?? '');
  const err = e as NodeJS.ErrnoException | undefined;
  if (!err || typeof err !== 'object') return false;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(err.code ?? '')) return true;
  // pg's own words for a connection that ended under a query, or a client already broken
  return /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect/i.test(
    err.message ?? '',
  );
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
  /** a pooled connection's error outside a query (a server restart): logged, never fatal */
  onConnectionError?: (err: Error) => void;
}

/**
 * Rows as objects, built from pg's array rows: pg's own objects start as a spread of a
 * null-prototype template, which V8 copies through its slow runtime path (about 8 µs for a row
 * of 12 columns); assignment is several times cheaper. Same keys, same order, the last of
 * duplicate names wins, as pg has it; a column named __proto__ stays an own property.
 */
function objects<T extends Row>(result: pg.QueryArrayResult): T[] {
  const names = result.fields.map((f) => f.name);
  const rows = result.rows;
  const out = new Array<T>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r];
    const row: Row = {};
    for (let i = 0; i < names.length; i++) {
      if (names[i] === '__proto__') Object.defineProperty(row, '__proto__', { value: values[i], enumerable: true, writable: true, configurable: true });
      else row[names[i]] = values[i];
    }
    out[r] = row as T;
  }
  return out;
}

/** `options` as a number is the pool size, with no pooler in front. */
export function openPostgres(url: string, options: number | PostgresOptions): Database {
  const opts: PostgresOptions = typeof options === 'number' ? { poolSize: options } : options;
  // biome-ignore lint/suspicious/noExplicitAny: pg's type-parser typings do not name the override's format argument
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize, types: types as any });
  const onError = opts.onConnectionError ?? (() => {});
  // pg-pool listens for an idle client's error; a checked-out client between two queries (inside a
  // transaction, say) has no listener and its 'error' (57P01 on a restart) would end the process.
  // Every client gets one for life; the broken client then fails its next query and is discarded.
  pool.on('connect', (client) => client.on('error', onError));
  pool.on('error', onError);
  const named = opts.pooler !== 'transaction';
  const config = (sql: string, params?: unknown[], o?: QueryOptions): pg.QueryArrayConfig =>
    o?.prepare && named ? { name: statementName(sql), text: sql, values: params, rowMode: 'array' } : { text: sql, values: params, rowMode: 'array' };
  // A transaction's statements take turns on its client: pg 8 queues a query sent while another
  // runs, with a deprecation warning, and pg 9 refuses it. So concurrent statements inside a
  // transaction (Promise.all) run one after another, and ROLLBACK waits for those in flight.
  const inTurn = () => {
    let last: Promise<unknown> = Promise.resolve();
    return <T>(statement: () => Promise<T>): Promise<T> => {
      const next = last.then(statement, statement);
      last = next.catch(() => {});
      return next;
    };
  };
  const wrap = (turn: ReturnType<typeof inTurn>, c: pg.PoolClient): Queryable => ({
    async query<T extends Row>(sql: string, params?: unknown[], o?: QueryOptions) {
      try {
        return objects<T>(await turn(() => c.query(config(sql, params, o))));
      } catch (e) {
        throw translate(e);
      }
    },
  });
  const connect = () => pool.connect().catch((e) => Promise.reject(translate(e)));
  return {
    kind: 'postgres',
    // pg-pool's own query() closes the connection after any error, also after a refused statement
    // (a unique violation the caller expects): a burst of 409s became a burst of new backends.
    // Only an error that is not PostgreSQL's answer to the statement (the connection's) closes it.
    // Callbacks inside, one promise outside: pg makes a promise for each of connect() and query()
    // when given none, and the request path paid their hops on every statement.
    query<T extends Row>(sql: string, params?: unknown[], o?: QueryOptions) {
      return new Promise<T[]>((resolve, reject) => {
        pool.connect((err, client, release) => {
          if (err || !client) return reject(translate(err));
          const done = (e: Error | null, result?: pg.QueryArrayResult) => {
            if (e) {
              release(!(e instanceof pg.DatabaseError) || databaseAway(e) ? e : undefined);
              return reject(translate(e));
            }
            release();
            try {
              resolve(objects<T>(result!));
            } catch (x) {
              reject(x);
            }
          };
          try {
            client.query(config(sql, params, o), done);
          } catch (e) {
            done(e as Error); // a throw here, in pg-pool's callback, would end the process
          }
        });
      });
    },
    async transaction(fn) {
      const client = await connect();
      const turn = inTurn();
      const run = (sql: string) => turn(() => client.query(sql)).catch((e) => Promise.reject(translate(e)));
      let broken: Error | undefined;
      try {
        await run('BEGIN');
        // a query without parameters goes over the simple protocol, which takes several statements
        const result = await fn({ ...wrap(turn, client), exec: async (script) => void (await run(script)) });
        await run('COMMIT');
        return result;
      } catch (e) {
        if (e instanceof DatabaseUnavailable) broken = e;
        else await run('ROLLBACK').catch((r) => void (broken = r));
        throw e;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
