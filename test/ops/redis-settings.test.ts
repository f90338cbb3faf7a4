// The Redis settings BullMQ needs, checked at start-up: a maxmemory-policy other than
// noeviction gets a clear warning (on a private redis-server whose policy the test sets), and a
// worker process started on it says so in its log. REDIS_SENTINELS and REDIS_CLUSTER_NODES are
// parsed as host:port pairs; the cluster's client gets our options where each belongs.
import { Writable } from 'node:stream';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { checkEvictionPolicy, describeRedis, openRedis } from '../../src/queue/redis-connection.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService } from '../../testkit/service-process.ts';

let redis: PrivateRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startPrivateRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

async function warnings(policy: string): Promise<any[]> {
  await client.config('SET', 'maxmemory-policy', policy);
  const lines: any[] = [];
  const sink = new Writable({
    write: (chunk, _e, cb) => (
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l: string) => JSON.parse(l)),
      ),
      cb()
    ),
  });
  await checkEvictionPolicy(client, createLogger('info', sink));
  return lines.filter((l) => l.level === 40);
}

describe('Redis settings', () => {
  it('warns when maxmemory-policy is not noeviction, and only then', async () => {
    expect(await warnings('noeviction')).toEqual([]);
    const [warn] = await warnings('allkeys-lru');
    expect(warn.msg).toMatch(/^Redis maxmemory-policy is allkeys-lru: set it to noeviction/);
    expect(warn.maxmemoryPolicy).toBe('allkeys-lru');
  });

  it('a process started on such a Redis says so in its log', async () => {
    await client.config('SET', 'maxmemory-policy', 'volatile-lru');
    const pgdb = await createPgDatabase();
    const p = spawnService(['worker'], { DATABASE_URL: pgdb.url, REDIS_URL: redis.url, REDIS_PREFIX: `iitest${randomToken(6)}` });
    try {
      const line = await p.waitForLog((l) => /maxmemory-policy is volatile-lru/.test(l.msg ?? ''), 120_000);
      expect(line.level).toBe(40);
    } finally {
      p.signal('SIGKILL');
      await p.exited;
      await pgdb.drop();
      await client.config('SET', 'maxmemory-policy', 'noeviction');
    }
  }, 180_000);

  it('REDIS_SENTINELS: host:port pairs; anything else is a configuration error naming the variable', () => {
    const c = loadConfig({ REDIS_SENTINELS: '10.0.0.1:26379, sentinel-b:26380,[::1]:26381', REDIS_SENTINEL_NAME: 'ii' });
    expect(c.redisSentinels).toEqual([
      { host: '10.0.0.1', port: 26379 },
      { host: 'sentinel-b', port: 26380 },
      { host: '::1', port: 26381 },
    ]);
    expect(describeRedis(c)).toBe('sentinel ii via 10.0.0.1:26379,sentinel-b:26380,::1:26381');
    expect(() => loadConfig({ REDIS_SENTINELS: 'sentinel-a' })).toThrow(/REDIS_SENTINELS must be host:port pairs/);
    expect(() => loadConfig({ REDIS_SENTINELS: 'a:1,b:70000' })).toThrow(/REDIS_SENTINELS must be host:port pairs/);
    expect(describeRedis(loadConfig({ REDIS_URL: 'redis://user:secret@cache:6380/2' }))).toBe('redis://cache:6380/2');
  });

  it('REDIS_CLUSTER_NODES: a Cluster client, our options split between it and its nodes; never with Sentinel', () => {
    const c = loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000,redis-2:7001', REDIS_URL: 'rediss://user:secret@ignored:6379' });
    expect(describeRedis(c)).toBe('cluster via redis-1:7000,redis-2:7001');
    const cluster = openRedis(c, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500 });
    try {
      expect(cluster).toBeInstanceOf(Cluster);
      const { options } = cluster as Cluster;
      expect(options).toMatchObject({ lazyConnect: true, enableOfflineQueue: false });
      expect(options.redisOptions).toMatchObject({ maxRetriesPerRequest: 0, commandTimeout: 500, username: 'user', password: 'secret', tls: {} });
      expect(cluster.status).toBe('wait'); // lazy: nothing connected
    } finally {
      cluster.disconnect();
    }
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2' })).toThrow(/REDIS_SENTINELS and REDIS_CLUSTER_NODES exclude each other/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-1' })).toThrow(/REDIS_CLUSTER_NODES must be host:port pairs/);
  });
});
