import pg from 'pg';
import { createHash } from 'node:crypto';
import type { Database, Queryable, QueryOptions, Row } from './database.ts';
import './pg-patches.ts';

// A prepared statement's name is derived from its text, so the same SQL maps to the same name.
const names = new Map<string, string>();
const statementName = (sql: string) => {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `s_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`));
  return name;
};

// int8 (counts, sums) as numbers: every value we store fits in 2^53.
const types = {
  getTypeParser: (oid: number, format?: any) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)),
};

export function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: types as any });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const config = (sql: string, params?: unknown[], opts?: QueryOptions) =>
    opts?.prepare ? { name: statementName(sql), text: sql, values: params as any[] } : { text: sql, values: params as any[] };
  const wrap = (c: pg.PoolClient): Queryable => ({
    async query<T extends Row>(sql: string, params?: unknown[], opts?: QueryOptions) {
      return (await c.query(config(sql, params, opts))).rows as T[];
    },
  });
  return {
    kind: 'postgres',
    // pg-pool's own query() closes the connection after any error, also after a refused statement
    // (a unique violation the caller expects): a burst of 409s became a burst of new backends.
    // Only an error that is not PostgreSQL's answer to the statement (the connection's) closes it.
    async query<T extends Row>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        return (await client.query(config(sql, params, opts))).rows as T[];
      } catch (e) {
        if (!(e instanceof pg.DatabaseError)) broken = e as Error;
        throw e;
      } finally {
        client.release(broken);
      }
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // a query without parameters goes over the simple protocol, which takes several statements
        const result = await fn({ ...wrap(client), exec: async (script) => void (await client.query(script)) });
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
