// A throwaway database on the machine's PostgreSQL (TEST_PG_URL, trust auth), dropped again by drop().
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string, adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty PostgreSQL database (on the server of `adminUrl`, the machine's by default) and returns its URL and a dropper. */
export async function createPgDatabase(adminUrl = PG_ADMIN_URL): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ii_test_${randomToken(10).toLowerCase()}`;
  await admin(`create database ${name}`, adminUrl);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`, adminUrl) };
}
