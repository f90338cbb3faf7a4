// The API's per-key rate limit, from kept parts: rate-limiter-flexible, counted in Redis for every
// node with the same prefix, a key over budget blocked in memory until its window ends, and a
// per-node in-memory insurance limiter while Redis is away. Nodes take a key's budget in slices of
// 1 % (at most 100), so one request in a slice pays a Redis round trip; a slice dies with its
// window: together nodes never exceed the limit, and fall short by at most a slice each.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../queue/redis-connection.ts';

export interface RateAnswer {
  allowed: boolean;
  remaining: number;
  resetMs: number;
}

export class ApiRateLimiter {
  private readonly limiter: RateLimiterRedis;
  private readonly slice: number;
  private readonly slices = new Map<string, { left: number; remaining: number; until: number }>();
  private readonly reserving = new Map<string, Promise<boolean | undefined>>();
  private readonly sweep: NodeJS.Timeout;

  /** `redis`: a fail-fast connection (no offline queue, short timeout). */
  constructor(redis: RedisClient, prefix: string, limit: { max: number; windowMs: number }) {
    const duration = limit.windowMs / 1000;
    this.slice = Math.max(1, Math.min(100, Math.floor(limit.max / 100)));
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:rl`,
      points: limit.max,
      duration,
      rejectIfRedisNotReady: true,
      inMemoryBlockOnConsumed: limit.max,
      insuranceLimiter: new RateLimiterMemory({ points: limit.max, duration }),
    });
    this.sweep = setInterval(() => {
      const now = Date.now();
      if (this.slices.size > 1000) for (const [bucket, s] of this.slices) if (s.until < now) this.slices.delete(bucket);
    }, 250).unref();
  }

  /** Counts a request of `bucket` from the slice this node holds, at once; null when a slice must be reserved first (consume). */
  take(bucket: string): RateAnswer | null {
    const s = this.slices.get(bucket);
    const resetMs = (s?.until ?? 0) - Date.now();
    return s && resetMs > 0 && s.left > 0 ? { allowed: true, remaining: s.remaining + --s.left, resetMs } : null;
  }

  /** Counts a request of `bucket`: the budget left and when its window ends; undefined if no limiter answered (fail open). */
  async consume(bucket: string): Promise<RateAnswer | undefined> {
    for (;;) {
      const taken = this.take(bucket);
      if (taken) return taken;
      let reserved = this.reserving.get(bucket);
      if (!reserved) this.reserving.set(bucket, (reserved = this.reserve(bucket).finally(() => this.reserving.delete(bucket))));
      const outcome = await reserved;
      if (outcome === undefined) return undefined;
      if (!outcome) return { allowed: false, remaining: 0, resetMs: Math.max(0, (this.slices.get(bucket)?.until ?? 0) - Date.now()) };
    }
  }

  /** Takes the next slice of `bucket`'s budget: true if some of it was left, false if none. */
  private async reserve(bucket: string): Promise<boolean | undefined> {
    const set = (left: number, res: RateLimiterRes) => {
      this.slices.set(bucket, { left, remaining: res.remainingPoints, until: Date.now() + res.msBeforeNext });
      return left > 0;
    };
    try {
      return set(this.slice, await this.limiter.consume(bucket, this.slice));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) return undefined;
      // over the limit: what was left before this slice is still ours (0 when blocked in memory)
      return set(e.consumedPoints > 0 ? Math.max(0, this.limiter.points - (e.consumedPoints - this.slice)) : 0, e);
    }
  }

  close(): void {
    clearInterval(this.sweep);
  }
}
