// Failed dashboard sign-ins counted in Redis per address and per e-mail, so every API node sees
// the same counts: after `attempts` failures within `windowMs` either one is refused until the
// window ends. A success clears the e-mail's count (not the address's: one address may be trying
// many e-mails).
import type { RedisClient } from '../../queue/redis-connection.ts';

const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

export class SignInThrottle {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly settings: { attempts: number; windowMs: number },
  ) {}

  private keys(address: string, email: string): [string, string] {
    return [`${this.prefix}:signin:ip:${address}`, `${this.prefix}:signin:user:${email.trim().toLowerCase()}`];
  }

  /** Milliseconds until the address or the e-mail may try again; 0 when it may now. */
  async blockedFor(address: string, email: string): Promise<number> {
    const keys = this.keys(address, email);
    const counts = await this.redis.mget(...keys);
    const over = keys.filter((_, i) => Number(counts[i] ?? 0) >= this.settings.attempts);
    if (!over.length) return 0;
    const ttls = await Promise.all(over.map((k) => this.redis.pttl(k)));
    return Math.max(1000, ...ttls);
  }

  async recordFailure(address: string, email: string): Promise<void> {
    await Promise.all(this.keys(address, email).map((k) => this.redis.eval(RECORD_FAILURE, 1, k, this.settings.windowMs)));
  }

  async recordSuccess(address: string, email: string): Promise<void> {
    await this.redis.del(this.keys(address, email)[1]);
  }
}
