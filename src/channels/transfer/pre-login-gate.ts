// Limits before login, shared by FTP, FTPS (explicit and implicit) and SFTP: per client address, a
// few connections not yet logged in at once and a budget of new connections per minute; per
// connection, a deadline from the TCP connection to a completed login (TLS or SSH handshake, the
// SSH identification line, USER/PASS or SSH authentication all count against it). A flood from
// one address then uses up its own budget, never the global connection cap every client shares.
//
// The per-minute budget is a token bucket; a connection that logs in gives its token back, so a
// client that opens one connection per file is not slowed: only connections that never log in
// spend it. IPv6 clients are counted per /64 (one host usually holds a whole /64).
import { isIPv6 } from 'node:net';
import type { PreLoginLimit, TransferLimitMetrics } from '../../ops/metrics.ts';
import type { Logger } from '../../platform/logger.ts';
import { normalizeAddress } from './lockout-policy.ts';
import type { TransferChannel } from '../../domain/channels.ts';

export interface PreLoginLimits {
  maxUnauthenticatedPerAddress: number;
  connectionsPerMinutePerAddress: number;
  handshakeTimeoutMs: number;
}

/** An admitted connection, from its TCP connection until it logs in or closes. */
export interface PreLoginTicket {
  /** the address the limits count it under */
  readonly address: string;
  /** what to do when the handshake timeout fires (it closes the connection); replaceable */
  onTimeout: () => void;
  /** The login completed: the deadline stops, the connection no longer counts, its token comes back. */
  loggedIn(): void;
  /** The connection closed (any time; idempotent). */
  closed(): void;
}

export type Admission = { ok: true; ticket: PreLoginTicket } | { ok: false; limit: Exclude<PreLoginLimit, 'handshake_timeout'> };

/** The key an address is counted under: an IPv4 address, an IPv6 address's /64. */
export function addressKey(ip: string | undefined): string {
  const address = normalizeAddress(ip);
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The pure bookkeeping: per address, connections not logged in and the per-minute token bucket. */
export class AddressBudget {
  private readonly pending = new Map<string, number>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limits: Pick<PreLoginLimits, 'maxUnauthenticatedPerAddress' | 'connectionsPerMinutePerAddress'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot and a token for a new connection from `key`, or names the limit it hits. */
  take(key: string): Exclude<PreLoginLimit, 'handshake_timeout'> | undefined {
    if ((this.pending.get(key) ?? 0) >= this.limits.maxUnauthenticatedPerAddress) return 'per_address';
    const bucket = this.bucket(key);
    if (bucket.tokens < 1) return 'rate';
    bucket.tokens -= 1;
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    if (this.buckets.size > 1000) this.prune();
    return undefined;
  }

  /** A connection of `key` stops counting as not logged in; `refund` gives its token back. */
  release(key: string, refund: boolean): void {
    const n = (this.pending.get(key) ?? 1) - 1;
    if (n > 0) this.pending.set(key, n);
    else this.pending.delete(key);
    if (refund) {
      const bucket = this.bucket(key);
      bucket.tokens = Math.min(this.limits.connectionsPerMinutePerAddress, bucket.tokens + 1);
    }
  }

  /** Connections of `key` not logged in now. */
  unauthenticated(key: string): number {
    return this.pending.get(key) ?? 0;
  }

  private bucket(key: string): { tokens: number; at: number } {
    const cap = this.limits.connectionsPerMinutePerAddress;
    const now = this.now();
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: cap, at: now }));
    b.tokens = Math.min(cap, b.tokens + ((now - b.at) * cap) / 60_000);
    b.at = now;
    return b;
  }

  /** Forgets full buckets (addresses that have been quiet long enough): memory stays bounded by active addresses. */
  private prune(): void {
    const cap = this.limits.connectionsPerMinutePerAddress;
    const now = this.now();
    for (const [key, b] of this.buckets) if (b.tokens + ((now - b.at) * cap) / 60_000 >= cap && !this.pending.has(key)) this.buckets.delete(key);
  }
}

/** A protocol's gate: admits connections by address, arms their handshake deadline, logs and counts what it refuses. */
export class PreLoginGate {
  private readonly budget: AddressBudget;
  // one log line per address and limit per minute, with how many were refused since the last one
  private readonly logged = new Map<string, { at: number; count: number }>();

  constructor(
    readonly protocol: TransferChannel,
    readonly limits: PreLoginLimits,
    private readonly deps: { log: Logger; metrics: TransferLimitMetrics; now?: () => number },
  ) {
    this.budget = new AddressBudget(limits, deps.now);
  }

  /** A new TCP connection from `ip`: admitted with its deadline running, or refused (logged and counted). */
  admit(ip: string | undefined, onTimeout: () => void): Admission {
    const address = addressKey(ip);
    const limit = this.budget.take(address);
    if (limit) {
      this.report(address, limit);
      return { ok: false, limit };
    }
    let open = true;
    const ticket: PreLoginTicket = {
      address,
      onTimeout,
      loggedIn: () => finish(true),
      closed: () => finish(false),
    };
    const timer = setTimeout(() => {
      if (!open) return;
      this.report(address, 'handshake_timeout');
      finish(false);
      ticket.onTimeout();
    }, this.limits.handshakeTimeoutMs);
    timer.unref();
    const finish = (refund: boolean) => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      this.budget.release(address, refund);
    };
    return { ok: true, ticket };
  }

  /** Connections from `ip` (its address key) not logged in now (tests, diagnostics). */
  unauthenticated(ip: string): number {
    return this.budget.unauthenticated(addressKey(ip));
  }

  private report(address: string, limit: PreLoginLimit): void {
    this.deps.metrics.hit(this.protocol, limit);
    const now = (this.deps.now ?? Date.now)();
    const key = `${address} ${limit}`;
    const last = this.logged.get(key);
    if (last && now - last.at < 60_000) {
      last.count += 1;
      return;
    }
    if (this.logged.size > 1000) for (const [k, v] of this.logged) if (now - v.at >= 60_000) this.logged.delete(k);
    this.logged.set(key, { at: now, count: 0 });
    const { protocol, limits } = this;
    const detail =
      limit === 'per_address'
        ? { limit: limits.maxUnauthenticatedPerAddress }
        : limit === 'rate'
          ? { perMinute: limits.connectionsPerMinutePerAddress }
          : { timeoutMs: limits.handshakeTimeoutMs };
    const what =
      limit === 'handshake_timeout'
        ? 'closed: no login within the handshake timeout'
        : `refused: ${limit === 'rate' ? 'too many new connections per minute' : 'too many connections not logged in'} from this address`;
    this.deps.log.warn({ protocol, address, prelogin: limit, ...detail, suppressed: last?.count ?? 0 }, `${protocol} connection ${what}`);
  }
}
