// A fresh database per test file: in-memory PGlite, or a new PostgreSQL database when
// TEST_DB=postgres (dropped again at close).
import type { Database } from '../../src/db/database.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';

function testDbKind(): 'pglite' | 'postgres' {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

export async function openTestDatabase(kind = testDbKind()): Promise<Database> {
  if (kind === 'pglite') return openPglite(undefined);
  const { url, drop } = await createPgDatabase();
  const db = openPostgres(url, 10);
  return {
    ...db,
    close: async () => {
      await db.close();
      await drop();
    },
  };
}
