// A fresh database per test file: in-memory PGlite, or a new PostgreSQL database when
// TEST_DB=postgres (dropped again at close).
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { randomToken } from '../../src/domain/ids.ts';

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDbKind(): 'pglite' | 'postgres' {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

/** Creates an empty PostgreSQL database and returns its URL and a dropper. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ii_test_${randomToken(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function openTestDatabase(kind = testDbKind()): Promise<Database> {
  if (kind === 'pglite') return openPglite(undefined);
  const { url, drop } = await createPgDatabase();
  const db = openPostgres(url, 10);
  return { ...db, close: async () => { await db.close(); await drop(); } };
}
