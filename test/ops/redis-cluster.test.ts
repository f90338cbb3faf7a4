// Redis Cluster: three primaries started by this test, every process of the service (api, ftp,
// two workers) on REDIS_CLUSTER_NODES. Files go in by HTTP and FTPS; every acknowledged file is
// attached once, and every key of the installation sits in the one slot of its hash tag.
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startRedisCluster, type RedisCluster } from '../../testkit/redis-cluster.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { expectOnlyRetryable, startFlow, type Flow } from './engine-flow.ts';
import { verify, waitAttached } from './multi-process-checks.ts';

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let cluster: RedisCluster;
let flow: Flow;
let sql: pg.Pool;
const prefix = `iitest${randomToken(6)}`;

beforeAll(async () => {
  [pgdb, cluster] = await Promise.all([createPgDatabase(), startRedisCluster()]);
  sql = new pg.Pool({ connectionString: pgdb.url, max: 2 });
  flow = await startFlow({ env: { DATABASE_URL: pgdb.url, REDIS_CLUSTER_NODES: cluster.nodes, REDIS_PREFIX: prefix, RECONCILE_INTERVAL_MS: '2000' } });
}, 240_000);

afterAll(async () => {
  await flow?.stop();
  await sql?.end();
  await cluster?.stop();
  await pgdb?.drop();
});

it('files by HTTP and FTPS through a three-primary cluster: every acknowledged file attached once', async () => {
  const files = await flow.makeFiles('CLU', 60, ['http', 'ftp']);
  await Promise.all([flow.sendHttp(files.filter((f) => f.channel === 'http')), flow.sendFtps(files.filter((f) => f.channel === 'ftp'))]);
  await waitAttached(sql, files);
  const { records, duplicates } = await verify(sql, files);
  expect(records).toBe(files.length);
  expect(duplicates).toBe(0);
  for (const [name, p] of flow.processes) expect(p.proc.exitCode, `${name} exited: ${p.stderr.join('')}`).toBeNull();
  expectOnlyRetryable(flow);

  // every key of the installation lives where its hash tag puts it: on one primary, in one slot
  // (the intake and periodic queues, the rate limiter's windows). A window's key lives as long as
  // its window: one more request makes sure one is there however long the flow took.
  expect((await flow.api('GET', '/v2/imports')).status).toBe(200);
  const perNode = await Promise.all(
    cluster.ports.map(async (port) => {
      const node = new Redis({ port, host: '127.0.0.1' });
      try {
        const keys = await node.keys(`{${prefix}}:*`);
        return { keys, slots: new Set(await Promise.all(keys.map((k) => node.call('CLUSTER', 'KEYSLOT', k)))) };
      } finally {
        node.disconnect();
      }
    }),
  );
  const holding = perNode.filter((n) => n.keys.length);
  expect(holding).toHaveLength(1);
  expect(holding[0].slots.size).toBe(1);
  for (const part of ['intake', 'periodic', 'rl'])
    expect(
      holding[0].keys.some((k) => k.startsWith(`{${prefix}}:${part}:`)),
      part,
    ).toBe(true);
}, 300_000);
