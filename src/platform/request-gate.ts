// One Redis round trip per API request: the per-key rate limit (a fixed window shared by every
// node with the same prefix) and the check for a key revocation marker, in one Lua script.
// Keys are hash-tagged ({...}) so both live in one Redis Cluster slot.
import type { Redis } from 'ioredis';
import { DomainError } from '../domain/errors.ts';
import type { KeyRevocations } from '../services/key-cache.ts';

export interface GateResult {
  /** requests in the current window, this one included */
  count: number;
  /** milliseconds until the window ends */
  ttlMs: number;
  /** the presented key was replaced: do not trust a cached lookup */
  revoked: boolean;
}

const HIT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
local revoked = 0
if #KEYS > 1 then revoked = redis.call('EXISTS', KEYS[2]) end
return {current, ttl, revoked}`;

type GateRedis = Redis & { gateHit(...args: (string | number)[]): Promise<[number, number, number]> };

export class RedisRequestGate implements KeyRevocations {
  private readonly redis: GateRedis;
  private lostListeners: (() => void)[] = [];

  /** `redis` is a dedicated, fail-fast connection (no offline queue, short command timeout). */
  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('gateHit', { lua: HIT });
    this.redis = redis as GateRedis;
    // markers written while we were away may be gone (a restarted Redis): callers drop caches
    for (const event of ['close', 'reconnecting']) redis.on(event, () => this.lostListeners.forEach((fn) => fn()));
  }

  private counterKey = (bucket: string) => `${this.prefix}:rl:{${bucket}}`;
  private markerKey = (hash: string) => `${this.prefix}:kr:{k:${hash}}`;

  /** Counts a request of `bucket`; null when Redis cannot answer (callers then fail open, uncached). */
  async hit(bucket: string, keyHash: string | undefined, windowMs: number): Promise<GateResult | null> {
    if (this.redis.status !== 'ready') return null;
    try {
      const keys = keyHash ? [this.counterKey(bucket), this.markerKey(keyHash)] : [this.counterKey(bucket)];
      const [count, ttlMs, revoked] = await this.redis.gateHit(keys.length, ...keys, windowMs);
      return { count, ttlMs, revoked: revoked === 1 };
    } catch {
      return null;
    }
  }

  async markRevoked(hashes: string[], ttlMs: number): Promise<void> {
    if (this.redis.status !== 'ready') throw DomainError.unavailable('Redis is unavailable, so other nodes could not be told; the key was not changed. Retry shortly');
    // one SET per key (each its own cluster slot); any failure rejects, so the rotation is not committed
    await Promise.all(hashes.map((h) => this.redis.set(this.markerKey(h), '1', 'PX', ttlMs)));
  }

  /** fn runs whenever the connection drops */
  onConnectionLost(fn: () => void): void {
    this.lostListeners.push(fn);
  }

  /** resolves when the connection is ready, fails, or after `ms` (never holds start-up for Redis) */
  async ready(ms: number): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        for (const e of ['ready', 'error', 'close']) this.redis.off(e, done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      for (const e of ['ready', 'error', 'close']) this.redis.once(e, done);
    });
  }

  close(): void {
    this.redis.disconnect();
  }
}
