// Every Redis connection of the service, for ioredis and BullMQ alike: one URL, or a primary
// found through Redis Sentinel (REDIS_SENTINELS + REDIS_SENTINEL_NAME). With Sentinel the
// connection asks the sentinels for the primary and asks again whenever its connection closes
// (a dead primary, or a demoted one, which closes its clients), and a write that reaches a
// demoted primary (READONLY) reconnects and is sent again to the new one. ioredis's
// `failoverDetector` stays off: its disconnect on +switch-master, landing while the connection
// was already reconnecting, ended it for good ("Connection is closed.", status end) in 1 of 4
// failover runs of test/ops/redis-sentinel.test.ts.
import { Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { Logger } from './logger.ts';

export type RedisSettings = Pick<Config, 'redisUrl' | 'redisSentinels' | 'redisSentinelName' | 'redisSentinelPassword'>;

export function openRedis(config: RedisSettings, opts: RedisOptions = {}): Redis {
  if (!config.redisSentinels?.length) return new Redis(config.redisUrl, opts);
  const url = new URL(config.redisUrl);
  return new Redis({
    sentinels: config.redisSentinels,
    name: config.redisSentinelName,
    sentinelPassword: config.redisSentinelPassword,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    reconnectOnError: (err) => (/READONLY/.test(err.message) ? 2 : false),
    ...opts,
  });
}

/** Where the connection goes, for logs: never a password. */
export const describeRedis = (config: RedisSettings): string =>
  config.redisSentinels?.length
    ? `sentinel ${config.redisSentinelName} via ${config.redisSentinels.map((s) => `${s.host}:${s.port}`).join(',')}`
    : (() => {
        const u = new URL(config.redisUrl);
        return `${u.protocol}//${u.host}${u.pathname}`;
      })();

/**
 * BullMQ needs `maxmemory-policy noeviction`: an evicted job key is a job lost or run twice. Says so
 * clearly at start-up (managed Redis may refuse CONFIG: then the operator checks it by hand).
 */
export async function checkEvictionPolicy(redis: Redis, log: Logger): Promise<void> {
  try {
    const [, policy] = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as [string, string];
    if (policy && policy !== 'noeviction') {
      log.warn({ maxmemoryPolicy: policy }, `Redis maxmemory-policy is ${policy}: set it to noeviction (BullMQ's jobs must never be evicted; docs/operations.md, Redis)`);
    }
  } catch (err) {
    log.info({ err: (err as Error).message }, 'could not read Redis maxmemory-policy (CONFIG refused?): make sure it is noeviction');
  }
}
