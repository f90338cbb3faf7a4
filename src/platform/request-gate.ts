// The API's per-request gate, from kept parts. Rate limit: rate-limiter-flexible counting in Redis
// (one budget per key for every node with the same prefix), a key over its budget blocked in memory
// until its window ends (no Redis call), and a per-node in-memory limiter as insurance while Redis
// is away. Revocations: Redis pub/sub. A node trusts its key cache only while a PING sent on its
// subscription less than 1 s ago has come back (replies follow the messages published before them),
// so a rotated key fails on every node within 1 s, where a marker read on every request cost a
// Redis lookup per request.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors.ts';
import type { KeyCache, KeyRevocations } from '../services/key-cache.ts';

const TRUST_MS = 1000;

export class RequestGate implements KeyRevocations {
  private readonly limiter: RateLimiterRedis;
  private readonly channel: string;
  private confirmed = 0; // when the last answered PING was sent
  private readonly heartbeat: NodeJS.Timeout;

  /** `redis`: a fail-fast connection (no offline queue, short timeout); `sub` a fresh one for the subscription. */
  constructor(private readonly redis: Redis, private readonly sub: Redis, prefix: string, limit: { max: number; windowMs: number }, private readonly cache: KeyCache) {
    const duration = limit.windowMs / 1000;
    this.limiter = new RateLimiterRedis({
      storeClient: redis, keyPrefix: `${prefix}:rl`, points: limit.max, duration, rejectIfRedisNotReady: true,
      inMemoryBlockOnConsumed: limit.max, insuranceLimiter: new RateLimiterMemory({ points: limit.max, duration }),
    });
    this.channel = `${prefix}:key-revoked`;
    sub.on('message', (_channel: string, hashes: string) => hashes.split(',').forEach((h) => cache.forget(h)));
    sub.on('close', () => cache.clear()); // messages sent while away are lost
    void sub.subscribe(this.channel).catch(() => {}); // ioredis subscribes again after each reconnect
    this.heartbeat = setInterval(() => {
      const sent = Date.now();
      if (sub.status === 'ready') sub.ping().then(() => (this.confirmed = Math.max(this.confirmed, sent)), () => {});
    }, TRUST_MS / 4).unref();
  }

  /** Counts a request of `bucket`: the budget left and when its window ends; undefined if no limiter answered (fail open). */
  async consume(bucket: string): Promise<{ allowed: boolean; remaining: number; resetMs: number } | undefined> {
    try {
      const res = await this.limiter.consume(bucket);
      return { allowed: true, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
    } catch (e) {
      return e instanceof RateLimiterRes ? { allowed: false, remaining: 0, resetMs: e.msBeforeNext } : undefined;
    }
  }

  /** Whether every revocation published more than 1 s ago has reached this node. */
  cacheTrusted(): boolean {
    return this.sub.status === 'ready' && Date.now() - this.confirmed < TRUST_MS;
  }

  async announceRevoked(hashes: string[]): Promise<void> {
    if (this.redis.status !== 'ready') throw DomainError.unavailable('Redis is unavailable, so other nodes could not be told; the key was not changed. Retry shortly');
    await this.redis.publish(this.channel, hashes.join(','));
  }

  /** resolves when the cache may be trusted, Redis failed, or after `ms` (never holds start-up for Redis) */
  async ready(ms: number): Promise<void> {
    const until = Date.now() + ms;
    const connecting = () => [this.redis, this.sub].every((c) => ['wait', 'connecting', 'connect', 'ready'].includes(c.status));
    while (!this.cacheTrusted() && connecting() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.sub.disconnect();
    this.redis.disconnect();
  }
}
