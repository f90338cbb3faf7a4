import pg from 'pg';
import type { Database, Queryable, Row } from './database.ts';

// int8 (counts, sums) as numbers: every value we store fits in 2^53.
const types = {
  getTypeParser: (oid: number, format?: any) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)),
};

export function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: types as any });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const wrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T extends Row>(sql: string, params?: unknown[]) {
      return (await c.query(sql, params as any[])).rows as T[];
    },
  });
  const self = wrap(pool);
  return {
    kind: 'postgres',
    query: self.query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
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
