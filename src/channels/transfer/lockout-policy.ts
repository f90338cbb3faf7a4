// When failed FTP logins slow a client down and when they lock it out. Pure: the counts come
// from Redis (login-lockout.ts), so every FTP node applies the same decision.
//
// Failures are counted per address and per user name within a window of `lockoutMs` that starts
// at the first failure. Each failure delays the 530 reply a little more; the failure that reaches
// `attempts` locks the address (or user) for `lockoutMs` from that moment, during which even the
// right key is refused. A successful login clears both counts.

export interface LockoutSettings {
  attempts: number;
  lockoutMs: number;
}

export type LockoutSubject = 'address' | 'user';

export interface FailureCounts {
  address: number;
  user: number;
}

export const BASE_DELAY_MS = 250;
export const MAX_DELAY_MS = 4000;

/** Which subject is locked out, if any (the address first: it is the cheaper one to rotate). */
export function lockedSubject(counts: FailureCounts, s: LockoutSettings): LockoutSubject | undefined {
  if (counts.address >= s.attempts) return 'address';
  if (counts.user >= s.attempts) return 'user';
  return undefined;
}

/** How long to hold back the reply to the n-th failure (n >= 1): doubling, capped. */
export function failureDelayMs(failures: number): number {
  if (failures < 1) return 0;
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (failures - 1));
}

/** The subjects that this failure (with the counts after it) has just locked. */
export function newlyLocked(after: FailureCounts, s: LockoutSettings): LockoutSubject[] {
  const out: LockoutSubject[] = [];
  if (after.address === s.attempts) out.push('address');
  if (after.user === s.attempts) out.push('user');
  return out;
}

/** An address as one key: IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4 address. */
export function normalizeAddress(ip: string | undefined): string {
  if (!ip) return 'unknown';
  return ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1').toLowerCase();
}

/** Redis keys of the two counters; user names are client input, so they are encoded and cut. */
export function lockoutKeys(prefix: string, address: string, username: string): { address: string; user: string } {
  const user = encodeURIComponent(username.slice(0, 128).toLowerCase());
  return { address: `${prefix}:ftp:login-failures:addr:${normalizeAddress(address)}`, user: `${prefix}:ftp:login-failures:user:${user}` };
}
