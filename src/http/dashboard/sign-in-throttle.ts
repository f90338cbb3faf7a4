// Failed dashboard sign-ins, counted in Redis so that every API node sees the same counts. Keyed
// so that a stranger cannot keep a person out (issue 49): the delay belongs to the pair (client
// address, e-mail), never to the e-mail alone.
// - pair: `attempts` failures are free; after that each try must wait 1 s, 2 s, 4 s, ... (from
//   `firstDelayMs`, at most the window) after the pair's last failure.
// - person (the e-mail from any address): past `ceiling` failures, a guessing run spread over many
//   addresses, every pair gets one free failure instead of `attempts`. A pair that has not failed
//   (the owner at their own address) never waits: the ceiling delays, it never blocks.
// - address (any e-mail from one client address): past `ceiling` failures that address waits the
//   same growing delay, whatever e-mail it tries (stuffing one list of addresses).
// Counts forget a pair or an address `windowMs` after its last failure, a person's `windowMs`
// after its first. A success clears the pair.
import type { RedisClient } from '../../queue/redis-connection.ts';

// one key per script: the keys may live on different nodes of a Redis Cluster
// a pair's or an address's count and last failure (ms), kept `windowMs` after the last failure
const RECORD_LAST_FAILURE = `
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;
// the person's count lives from its first failure
const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export interface SignInThrottleSettings {
  /** free failures per (address, e-mail) */
  attempts: number;
  /** failures per e-mail (any address) or per address (any e-mail) after which delays tighten */
  ceiling: number;
  /** the first wait after the free failures; each further failure doubles it */
  firstDelayMs: number;
  windowMs: number;
}

export class SignInThrottle {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly settings: SignInThrottleSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private keys(address: string, email: string) {
    const person = email.trim().toLowerCase();
    return {
      pair: `${this.prefix}:signin:pair:${address}:${person}`,
      address: `${this.prefix}:signin:ip:${address}`,
      person: `${this.prefix}:signin:user:${person}`,
    };
  }

  /** How long after `last` the next try may come, for `n` failures of which `free` cost nothing. */
  private waitFor(n: number, free: number, last: number): number {
    if (n < free) return 0;
    const delay = Math.min(this.settings.firstDelayMs * 2 ** Math.min(n - free, 30), this.settings.windowMs);
    return Math.max(0, last + delay - this.now());
  }

  /** Milliseconds until this address may try this e-mail again; 0 when it may now. */
  async blockedFor(address: string, email: string): Promise<number> {
    const k = this.keys(address, email);
    const [pair, byAddress, person] = await Promise.all([
      this.redis.hmget(k.pair, 'n', 'last'),
      this.redis.hmget(k.address, 'n', 'last'),
      this.redis.get(k.person),
    ]);
    const free = Number(person ?? 0) >= this.settings.ceiling ? 1 : this.settings.attempts;
    return Math.max(
      this.waitFor(Number(pair[0] ?? 0), free, Number(pair[1] ?? 0)),
      this.waitFor(Number(byAddress[0] ?? 0), this.settings.ceiling, Number(byAddress[1] ?? 0)),
    );
  }

  async recordFailure(address: string, email: string): Promise<void> {
    const k = this.keys(address, email);
    const { windowMs } = this.settings;
    const at = this.now();
    await Promise.all([
      this.redis.eval(RECORD_LAST_FAILURE, 1, k.pair, windowMs, at),
      this.redis.eval(RECORD_LAST_FAILURE, 1, k.address, windowMs, at),
      this.redis.eval(RECORD_FAILURE, 1, k.person, windowMs),
    ]);
  }

  async recordSuccess(address: string, email: string): Promise<void> {
    await this.redis.del(this.keys(address, email).pair);
  }
}
