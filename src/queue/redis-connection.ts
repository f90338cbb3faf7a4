// Every Redis connection of the service, for ioredis and BullMQ alike: one URL, a primary found
// through Redis Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_NAME), or a Redis Cluster
// (REDIS_CLUSTER_NODES; an ioredis Cluster, which BullMQ takes as it takes a Redis). With Sentinel the
// connection asks the sentinels for the primary and asks again whenever its connection closes
// (a dead primary, or a demoted one, which closes its clients), and a write that reaches a
// demoted primary (READONLY) reconnects and is sent again to the new one. ioredis's
// `failoverDetector` stays off: its disconnect on +switch-master, landing while the connection
// was already reconnecting, ended it for good ("Connection is closed.", status end) in 1 of 4
// failover runs of test/ops/redis-sentinel.test.ts.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Logger } from '../platform/logger.ts';

export type RedisSettings = Pick<Config, 'redisUrl' | 'redisSentinels' | 'redisSentinelName' | 'redisSentinelPassword' | 'redisClusterNodes'>;

/** A connection to one Redis (direct or through Sentinel) or to a Redis Cluster: the commands we use are the same. */
export type RedisClient = Redis | Cluster;

/** The options of ours that a Cluster takes at its top level; the rest go to each node's connection. */
const CLUSTER_LEVEL = ['lazyConnect', 'enableOfflineQueue', 'enableAutoPipelining', 'enableReadyCheck'] as const;

export function openRedis(config: RedisSettings, opts: RedisOptions = {}): RedisClient {
  if (!config.redisSentinels?.length && !config.redisClusterNodes?.length) return new Redis(config.redisUrl, opts);
  const url = new URL(config.redisUrl);
  const auth: RedisOptions = {
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
  };
  if (config.redisClusterNodes?.length) {
    const top: ClusterOptions = {};
    const node: RedisOptions = { ...auth };
    for (const [k, v] of Object.entries(opts))
      (CLUSTER_LEVEL as readonly string[]).includes(k) ? Object.assign(top, { [k]: v }) : Object.assign(node, { [k]: v });
    return new Cluster(config.redisClusterNodes, { ...top, redisOptions: node });
  }
  return new Redis({
    sentinels: config.redisSentinels,
    name: config.redisSentinelName,
    sentinelPassword: config.redisSentinelPassword,
    ...auth,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    reconnectOnError: (err) => (/READONLY/.test(err.message) ? 2 : false),
    ...opts,
  });
}

/** Where the connection goes, for logs: never a password. */
export const describeRedis = (config: RedisSettings): string =>
  config.redisClusterNodes?.length
    ? `cluster via ${config.redisClusterNodes.map((s) => `${s.host}:${s.port}`).join(',')}`
    : config.redisSentinels?.length
      ? `sentinel ${config.redisSentinelName} via ${config.redisSentinels.map((s) => `${s.host}:${s.port}`).join(',')}`
      : (() => {
          const u = new URL(config.redisUrl);
          return `${u.protocol}//${u.host}${u.pathname}`;
        })();

/**
 * BullMQ needs `maxmemory-policy noeviction`: an evicted job key is a job lost or run twice. Says so
 * clearly at start-up (managed Redis may refuse CONFIG: then the operator checks it by hand).
 */
export async function checkEvictionPolicy(redis: RedisClient, log: Logger): Promise<void> {
  try {
    const [, policy] = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as [string, string];
    if (policy && policy !== 'noeviction') {
      log.warn(
        { maxmemoryPolicy: policy },
        `Redis maxmemory-policy is ${policy}: set it to noeviction (BullMQ's jobs must never be evicted; docs/operations.md, Redis)`,
      );
    }
  } catch (err) {
    log.info({ err: (err as Error).message }, 'could not read Redis maxmemory-policy (CONFIG refused?): make sure it is noeviction');
  }
}
