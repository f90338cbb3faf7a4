// Announcements between nodes (key revocations, webhook and account changes), over Redis pub/sub.
// A node trusts its caches only while a PING sent on its subscription under 1 s ago has come back
// (replies follow the messages published before them): a rotated key fails, and a changed webhook
// or account counts, on every node within 1 s. (On a Redis Cluster the PING travels on another
// connection and messages cross the cluster bus, so that bound is looser: docs/operations.md,
// Redis Cluster.) The bus subscribes again itself after each reconnect (`sub` must have
// autoResubscribe off): ioredis 5.11.1's own resubscription leaves a failure as an unhandled
// rejection, which ends the process (redis/ioredis#2187, not released), and nothing would tell
// that the channels are gone.
import { DomainError } from '../domain/errors.ts';
import type { KeyRevocations } from '../services/key-cache.ts';
import type { RedisClient } from './redis-connection.ts';

const TRUST_MS = 1000;

/** A cache kept by announcements: what one says to forget, and what to forget when some may have been missed. */
export interface AnnouncedCache {
  forget(message: string): void;
  clear(): void;
}

export class Announcements implements KeyRevocations {
  private confirmed = 0; // when the last answered PING was sent
  private lostAt = 0; // when the subscription last dropped: a PING sent before proves nothing
  private subscribedAt = 0; // when every channel was last subscribed on this connection (0: not since it dropped)
  private readonly heartbeat: NodeJS.Timeout;
  private readonly caches = new Map<string, AnnouncedCache>();

  /** `redis`: a fail-fast connection (no offline queue, short timeout) to publish on; `sub` a fresh one for the subscription. */
  constructor(
    private readonly redis: RedisClient,
    private readonly sub: RedisClient,
    private readonly prefix: string,
  ) {
    sub.on('message', (channel: string, message: string) => this.caches.get(channel)?.forget(message));
    sub.on('close', () => {
      // messages sent while away are lost
      this.lostAt = Date.now();
      this.subscribedAt = 0;
      for (const cache of this.caches.values()) cache.clear();
    });
    sub.on('ready', () => this.subscribe());
    this.heartbeat = setInterval(() => {
      const sent = Date.now();
      if (sub.status === 'ready')
        sub.ping().then(
          () => this.subscribedAt && sent > this.lostAt && (this.confirmed = Math.max(this.confirmed, sent)),
          () => {},
        );
    }, TRUST_MS / 4).unref();
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
    this.sub.subscribe(...this.caches.keys()).then(
      () => lostAt === this.lostAt && (this.subscribedAt = Date.now()),
      () => {},
    );
  }

  /** Tells every node's cache of `topic`; throws `unavailable` when Redis cannot (the caller then changes nothing). */
  async announce(topic: string, message: string, what: string): Promise<void> {
    if (this.redis.status !== 'ready')
      throw DomainError.unavailable(`Redis is unavailable, so other nodes could not be told; the ${what} was not changed. Retry shortly`);
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
  }
}
