// The API's per-request gate, from kept parts. Rate limit: rate-limiter-flexible, counted in Redis for
// every node with the same prefix, a key over budget blocked in memory until its window ends, and a
// per-node in-memory insurance limiter while Redis is away. Nodes take a key's budget in slices of
// 1 % (at most 100), so one request in a slice pays a Redis round trip; a slice dies with its window:
// together nodes never exceed the limit, and fall short by at most a slice each. Announcements (key
// revocations, webhook and account changes): Redis pub/sub; a node trusts its caches only while a
// PING sent on its subscription under 1 s ago has come back (replies follow the messages published
// before them): a rotated key fails, and a changed webhook or account counts, on every node within 1 s.
// (On a Redis Cluster the PING travels on another connection and messages cross the cluster bus,
// so that bound is looser: docs/operations.md, Redis Cluster.)
// The gate subscribes again itself after each reconnect (`sub` must have autoResubscribe off):
// ioredis 5.11.1's own resubscription leaves a failure as an unhandled rejection, which ends the
// process (redis/ioredis#2187, not released), and nothing would tell that the channels are gone.
import type { RedisClient } from '../queue/redis-connection.ts';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors.ts';
import type { KeyRevocations } from '../services/key-cache.ts';

const TRUST_MS = 1000;

/** A cache kept by announcements: what one says to forget, and what to forget when some may have been missed. */
export interface AnnouncedCache {
  forget(message: string): void;
  clear(): void;
}

export interface GateAnswer {
  allowed: boolean;
  remaining: number;
  resetMs: number;
}

export class RequestGate implements KeyRevocations {
  private readonly limiter: RateLimiterRedis;
  private confirmed = 0; // when the last answered PING was sent
  private lostAt = 0; // when the subscription last dropped: a PING sent before proves nothing
  private subscribedAt = 0; // when every channel was last subscribed on this connection (0: not since it dropped)
  private readonly heartbeat: NodeJS.Timeout;
  private readonly slice: number;
  private readonly slices = new Map<string, { left: number; remaining: number; until: number }>();
  private readonly reserving = new Map<string, Promise<boolean | undefined>>();
  private readonly caches = new Map<string, AnnouncedCache>();

  /** `redis`: a fail-fast connection (no offline queue, short timeout); `sub` a fresh one for the subscription. */
  constructor(private readonly redis: RedisClient, private readonly sub: RedisClient, private readonly prefix: string, limit: { max: number; windowMs: number }) {
    const duration = limit.windowMs / 1000;
    this.slice = Math.max(1, Math.min(100, Math.floor(limit.max / 100)));
    this.limiter = new RateLimiterRedis({
      storeClient: redis, keyPrefix: `${prefix}:rl`, points: limit.max, duration, rejectIfRedisNotReady: true,
      inMemoryBlockOnConsumed: limit.max, insuranceLimiter: new RateLimiterMemory({ points: limit.max, duration }),
    });
    sub.on('message', (channel: string, message: string) => this.caches.get(channel)?.forget(message));
    sub.on('close', () => { // messages sent while away are lost
      this.lostAt = Date.now();
      this.subscribedAt = 0;
      for (const cache of this.caches.values()) cache.clear();
    });
    sub.on('ready', () => this.subscribe());
    this.heartbeat = setInterval(() => {
      const sent = Date.now();
      if (sub.status === 'ready') sub.ping().then(() => this.subscribedAt && sent > this.lostAt && (this.confirmed = Math.max(this.confirmed, sent)), () => {});
      if (this.slices.size > 1000) for (const [bucket, s] of this.slices) if (s.until < sent) this.slices.delete(bucket);
    }, TRUST_MS / 4).unref();
  }

  /** Counts a request of `bucket` from the slice this node holds, at once; null when a slice must be reserved first (consume). */
  take(bucket: string): GateAnswer | null {
    const s = this.slices.get(bucket);
    const resetMs = (s?.until ?? 0) - Date.now();
    return s && resetMs > 0 && s.left > 0 ? { allowed: true, remaining: s.remaining + --s.left, resetMs } : null;
  }

  /** Counts a request of `bucket`: the budget left and when its window ends; undefined if no limiter answered (fail open). */
  async consume(bucket: string): Promise<GateAnswer | undefined> {
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

  /** Whether every revocation published more than 1 s ago has reached this node. */
  cacheTrusted(): boolean {
    return this.sub.status === 'ready' && this.subscribedAt > 0 && this.confirmed > this.lostAt && Date.now() - this.confirmed < TRUST_MS;
  }

  /** `cache` hears every node's announcements on `topic` from now on. */
  listen(topic: string, cache: AnnouncedCache): void {
    this.caches.set(`${this.prefix}:${topic}`, cache);
    this.subscribe();
  }

  /** (Re)subscribes every channel; the caches count as heard only once that has been answered. */
  private subscribe(): void {
    if (this.sub.status !== 'ready' || !this.caches.size) return;
    const lostAt = this.lostAt;
    this.subscribedAt = 0;
    this.sub.subscribe(...this.caches.keys()).then(() => lostAt === this.lostAt && (this.subscribedAt = Date.now()), () => {});
  }

  /** Tells every node's cache of `topic`; throws `unavailable` when Redis cannot (the caller then changes nothing). */
  async announce(topic: string, message: string, what: string): Promise<void> {
    if (this.redis.status !== 'ready') throw DomainError.unavailable(`Redis is unavailable, so other nodes could not be told; the ${what} was not changed. Retry shortly`);
    await this.redis.publish(`${this.prefix}:${topic}`, message);
  }

  announceRevoked(hashes: string[]): Promise<void> {
    return this.announce('key-revoked', hashes.join(','), 'key');
  }

  /** resolves when the cache may be trusted, Redis failed, or after `ms` (never holds start-up for Redis) */
  async ready(ms: number, until = Date.now() + ms): Promise<void> {
    const connecting = () => [this.redis, this.sub].every((c) => ['wait', 'connecting', 'connect', 'ready'].includes(c.status));
    while (!this.cacheTrusted() && connecting() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.sub.disconnect();
    this.redis.disconnect();
  }
}
