// Failed FTP login counts in Redis, so every FTP node sees the same lockouts. The decisions are
// in lockout-policy.ts; this file only reads and writes the counters.
import type { RedisClient } from '../../queue/redis-connection.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import { lockedSubject, lockoutKeys, newlyLocked, type FailureCounts, type LockoutSettings, type LockoutSubject } from './lockout-policy.ts';

// INCR, and (re)start the expiry on the first failure (the window) and on the failure that locks
// (the lockout runs for its full time from then on). One script so two nodes cannot race.
const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 or n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

// Redis commands wait while Redis is away (maxRetriesPerRequest: null): a login must not, so
// every call here fails once Redis has not answered for 5 s.
const LOCKOUT_TIMEOUT_MS = 5000;
const bounded = <T>(p: Promise<T>) => withTimeout(p, LOCKOUT_TIMEOUT_MS, `no answer from Redis within ${LOCKOUT_TIMEOUT_MS} ms`);

export class LoginLockout {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly settings: LockoutSettings,
  ) {}

  /** The subject that is locked out now, if any. */
  async locked(address: string, username: string): Promise<LockoutSubject | undefined> {
    const keys = lockoutKeys(this.prefix, address, username);
    const [a, u] = await bounded(this.redis.mget(keys.address, keys.user));
    return lockedSubject({ address: Number(a ?? 0), user: Number(u ?? 0) }, this.settings);
  }

  /** Counts a failure; returns the counts after it and the subjects it has just locked. */
  async recordFailure(address: string, username: string): Promise<{ counts: FailureCounts; locked: LockoutSubject[] }> {
    const keys = lockoutKeys(this.prefix, address, username);
    const { lockoutMs, attempts } = this.settings;
    const [a, u] = await bounded(
      Promise.all([
        this.redis.eval(RECORD_FAILURE, 1, keys.address, lockoutMs, attempts) as Promise<number>,
        this.redis.eval(RECORD_FAILURE, 1, keys.user, lockoutMs, attempts) as Promise<number>,
      ]),
    );
    const counts = { address: Number(a), user: Number(u) };
    return { counts, locked: newlyLocked(counts, this.settings) };
  }

  async recordSuccess(address: string, username: string): Promise<void> {
    const keys = lockoutKeys(this.prefix, address, username);
    await bounded(this.redis.del(keys.address, keys.user));
  }
}
