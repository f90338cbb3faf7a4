// Behind Debian's PgBouncer 1.18 in transaction pooling (started by this test, its own ini and
// port) with DATABASE_POOLER=transaction: invoice creations, HTTP imports and FTPS uploads all
// succeed, over api, ftp and worker processes, and every file is attached once. With 1.18 a
// named prepared statement made on one server connection is missing, or already there, on the
// next client's: the adapter sends none.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/postgres.ts';
import { startPgBouncer, type PgBouncer } from '../../testkit/pgbouncer.ts';
import { createPgDatabase, PG_ADMIN_URL } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { startFlow, type Flow } from './engine-flow.ts';
import { verify, waitAttached } from './multi-process-checks.ts';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let bouncer: PgBouncer;
let redis: PrivateRedis;
let flow: Flow;
let sql: pg.Pool;

beforeAll(async () => {
  const server = new URL(PG_ADMIN_URL);
  [pgdb, redis, bouncer] = await Promise.all([
    createPgDatabase(),
    startPrivateRedis(),
    startPgBouncer({ host: server.hostname, port: Number(server.port || 5432) }),
  ]);
  sql = new pg.Pool({ connectionString: pgdb.url, max: 2 });
  flow = await startFlow({ env: { DATABASE_URL: bouncer.through(pgdb.url), DATABASE_POOLER: 'transaction', REDIS_URL: redis.url } });
}, 240_000);

afterAll(async () => {
  await flow?.stop();
  await sql?.end();
  await bouncer?.stop();
  await redis?.stop();
  await pgdb?.drop();
});

describe('PgBouncer in transaction pooling', () => {
  it('the adapter with DATABASE_POOLER=transaction: statements marked for preparing run on any server connection', async () => {
    const db = openPostgres(bouncer.through(pgdb.url), { poolSize: 20, pooler: 'transaction' });
    try {
      const results = await Promise.all(Array.from({ length: 300 }, (_, i) => db.query<{ n: number }>('select $1::int + 1 as n', [i], { prepare: true })));
      expect(results.map((r) => r[0].n)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    } finally {
      await db.close();
    }
  });

  it('150 invoices, 100 HTTP imports and 50 FTPS uploads: every one succeeds and every file is attached once', async () => {
    const files = await flow.makeFiles('PGB', 150, ['http', 'http', 'ftp']);
    expect(files).toHaveLength(150);
    const http = files.filter((f) => f.channel === 'http');
    const ftp = files.filter((f) => f.channel === 'ftp');
    expect([http.length, ftp.length]).toEqual([100, 50]);
    await Promise.all([flow.sendHttp(http), flow.sendFtps(ftp)]);
    // no retry was needed: the first answer to each request was its success
    expect(flow.httpAnswers).toEqual([]);
    expect(flow.ftpCodes).toEqual([]);
    await waitAttached(sql, files);
    const { duplicates } = await verify(sql, files);
    expect(duplicates).toBe(0);
    for (const [name, p] of flow.processes)
      expect(
        p.logs.filter((l) => /prepared statement/.test(JSON.stringify(l))),
        name,
      ).toEqual([]);
  }, 300_000);
});
