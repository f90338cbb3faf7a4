// Redis behind Sentinel: a primary, a replica and three redis-sentinel processes started by this
// test, every process of the service on REDIS_SENTINELS. The primary is SIGKILLed while files
// flow by HTTP and FTPS; the sentinels promote the replica, every process follows by itself
// (ready again within 30 s), clients only see transient answers, and every acknowledged file is
// attached once (jobs the dead primary had not replicated come back through the reconciler).
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startSentinelSet, type SentinelSet } from '../../testkit/redis-sentinel.ts';
import { pollFor } from '../../testkit/wait.ts';
import { expectOnlyRetryable, startFlow, type Flow } from './engine-flow.ts';
import { verify, waitAttached } from './multi-process-checks.ts';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let sentinel: SentinelSet;
let flow: Flow;
let sql: pg.Pool;

beforeAll(async () => {
  [pgdb, sentinel] = await Promise.all([createPgDatabase(), startSentinelSet()]);
  sql = new pg.Pool({ connectionString: pgdb.url, max: 2 });
  flow = await startFlow({
    env: { DATABASE_URL: pgdb.url, REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_NAME: sentinel.name, RECONCILE_INTERVAL_MS: '2000' },
  });
}, 240_000);

afterAll(async () => {
  await flow?.stop();
  await sql?.end();
  await sentinel?.stop();
  await pgdb?.drop();
});

const received = async () => (await sql.query<{ n: number }>('select count(*)::int as n from intake_records')).rows[0].n;

it('the primary killed mid-flow: the replica takes over, every process follows, nothing lost or attached twice', async () => {
  const files = await flow.makeFiles('SNT', 120, ['http', 'ftp']);
  const sending = Promise.all([flow.sendHttp(files.filter((f) => f.channel === 'http')), flow.sendFtps(files.filter((f) => f.channel === 'ftp'))]);
  await pollFor(received, (n) => n >= 30, { ms: 120_000, everyMs: 100 });
  const { from, to } = await sentinel.killPrimary();
  expect(to).not.toBe(from);
  const promotedAt = Date.now();
  await Promise.all(
    [...flow.processes.values()].map(async (p) => {
      const base = await p.url();
      const ready = await pollFor(
        () =>
          fetch(`${base}/readyz`).then(
            async (r) => ({ status: r.status, body: await r.text() }),
            () => ({ status: 0, body: '' }),
          ),
        (r) => r.status === 200,
        { ms: 30_000, everyMs: 200 },
      );
      expect(ready.status, `${p.roles} /readyz: ${ready.body}`).toBe(200);
    }),
  );
  expect(Date.now() - promotedAt).toBeLessThan(30_000);
  await sending;
  await waitAttached(sql, files);
  const { duplicates } = await verify(sql, files);
  expect(duplicates).toBe(0);
  for (const [name, p] of flow.processes) expect(p.proc.exitCode, `${name} exited: ${p.stderr.join('')}`).toBeNull();
  expectOnlyRetryable(flow);
}, 300_000);
