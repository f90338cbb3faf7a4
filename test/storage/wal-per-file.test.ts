// What a file costs the PostgreSQL primary in WAL on each document store (issue 46's target: with
// s3 or a directory, under 10 KB of WAL per 100 KB file; the database store writes the file's
// bytes into the WAL). The service (api + worker, one process) runs on a private PostgreSQL
// cluster, whose WAL is this test's alone, and 40 PDFs of 100 KB go through POST /v2/imports to
// attached; pg_current_wal_lsn() is read before and after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../../testkit/private-postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { spawnService } from '../../testkit/service-process.ts';
import { pollFor } from '../../testkit/wait.ts';

const FILES = 40;
const SIZE = 100 * 1024;
let server: PrivatePostgres;
let redis: PrivateRedis;
let s3: S3Server;
const dirs: string[] = [];

beforeAll(async () => {
  [server, redis, s3] = await Promise.all([startPrivatePostgres({ durable: true }), startPrivateRedis(), startS3Server()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.destroy(), redis?.stop(), s3?.destroy()]);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** WAL bytes a file for `FILES` imports through a fresh service on `store`. */
async function walPerFile(store: Record<string, string>): Promise<number> {
  const db = await createPgDatabase(server.url);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-wal-'));
  dirs.push(dataDir);
  const adminToken = `adm_${randomToken(24)}`;
  const service = spawnService(['api', 'worker'], {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iiwal${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: dataDir,
    RATE_LIMIT_MAX: '1000000',
    ...store,
  });
  const sql = new pg.Client({ connectionString: db.url });
  try {
    const call = httpClient(await service.url());
    await sql.connect();
    const account = await call('POST', '/admin/accounts', { key: adminToken, body: { name: 'wal' } });
    const key = account.body.liveKey;
    const customer = await call('POST', '/v2/customers', { key, body: { customerCode: 'W-1', name: 'Wal BV' } });
    for (let i = 0; i < FILES; i++) {
      const inv = await call('POST', '/v2/invoices', {
        key,
        body: { customer: customer.body.id, invoiceNumber: `WAL-${i}`, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
      });
      expect(inv.status).toBe(201);
    }
    const bodies = await Promise.all(
      Array.from({ length: FILES }, async (_, i) => ({ Filename: `WAL-${i}.pdf`, Content: (await makePdf(`Invoice WAL-${i}`, SIZE)).toString('base64') })),
    );
    const [{ lsn }] = (await sql.query('select pg_current_wal_lsn()::text as lsn')).rows;
    for (const body of bodies) expect((await call('POST', '/v2/imports', { key, body })).status).toBe(202);
    const attached = await pollFor(
      async () => (await sql.query(`select count(*)::int as n from intake_records where status = 'attached'`)).rows[0].n,
      (n) => n === FILES,
      { ms: 120_000, everyMs: 100 },
    );
    expect(attached).toBe(FILES);
    const [{ n }] = (await sql.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as n', [lsn])).rows;
    return Number(n) / FILES;
  } finally {
    await sql.end().catch(() => {});
    service.signal('SIGTERM');
    await service.exited;
    await db.drop();
  }
}

describe('WAL a 100 KB file, by document store', () => {
  const figures: Record<string, number> = {};
  afterAll(() =>
    console.log(
      `WAL a 100 KB file through POST /v2/imports to attached: ${Object.entries(figures)
        .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)} KB`)
        .join(', ')}`,
    ),
  );

  it('database: the bytes go through the WAL (more than the file)', async () => {
    figures.database = await walPerFile({ DOCUMENT_STORE: 'database' });
    expect(figures.database).toBeGreaterThan(SIZE);
  }, 240_000);

  it('directory: under 10 KB', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-wal-store-'));
    dirs.push(dir);
    figures.directory = await walPerFile({ DOCUMENT_STORE: 'directory', DOCUMENT_STORE_DIR: dir });
    expect(figures.directory).toBeLessThan(10 * 1024);
  }, 240_000);

  it('s3: under 10 KB', async () => {
    figures.s3 = await walPerFile(s3.env(`wal-${randomToken(6)}/`));
    expect(figures.s3).toBeLessThan(10 * 1024);
  }, 240_000);
});
