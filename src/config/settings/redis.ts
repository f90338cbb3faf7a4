// Redis: the queues, the lockouts and rate limits, the cross-node notifications.
import { Type } from '../typebox.ts';
import { hostPorts, setting, text, url } from '../setting-types.ts';

export const redis = Type.Object(
  {
    redisUrl: setting(url('redis', 'rediss'), {
      env: 'REDIS_URL',
      secret: true,
      example: 'redis://127.0.0.1:6379',
      doc: 'Queues, rate limits, FTP/SFTP lockouts. Unset: REDIS_DEFAULT_URL if a Redis answers there, else a private redis-server the service starts with its data and socket in DATA_DIR/redis (docs/operations.md).',
    }),
    redisDefaultUrl: setting(url('redis'), {
      env: 'REDIS_DEFAULT_URL',
      default: 'redis://127.0.0.1:6379',
      doc: 'Where a Redis is looked for when REDIS_URL is unset.',
    }),
    redisPrefix: setting(text('key prefix'), {
      env: 'REDIS_PREFIX',
      default: '',
      doc: 'The prefix of every Redis key. Empty: ii-<installation id>, an id stored in the database at its first migration, so two installations on one Redis never share keys.',
    }),
    redisSentinels: setting(hostPorts(), {
      env: 'REDIS_SENTINELS',
      example: 'sentinel-1:26379,sentinel-2:26379,sentinel-3:26379',
      doc: "Redis through Sentinel: every connection finds the primary and follows a failover. REDIS_URL's host is then ignored, its user, password and db still apply (docs/operations.md, Redis).",
    }),
    redisSentinelName: setting(text('name'), { env: 'REDIS_SENTINEL_NAME', default: 'mymaster', doc: 'The name of the primary the sentinels monitor.' }),
    redisSentinelPassword: setting(text('password'), { env: 'REDIS_SENTINEL_PASSWORD', secret: true, doc: "The sentinels' own password, if they have one." }),
    redisClusterNodes: setting(hostPorts(), {
      env: 'REDIS_CLUSTER_NODES',
      example: 'redis-1:6379,redis-2:6379,redis-3:6379',
      doc: "Redis Cluster: some of its nodes. REDIS_URL's host is then ignored, its user and password still apply.",
    }),
  },
  { title: 'Redis' },
);
