// The limits before login of FTP and SFTP (src/channels/transfer/pre-login-gate.ts): per-address
// slots and per-minute tokens, the refund of a login, IPv6 counted per /64, the handshake deadline,
// and the throttled log line.
import { describe, expect, it, vi } from 'vitest';
import { AddressBudget, addressKey, PreLoginGate } from '../../src/channels/transfer/pre-login-gate.ts';

describe('addressKey', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s counts as %s', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});

describe('AddressBudget', () => {
  it('holds at most N connections not logged in per address; other addresses are not affected', () => {
    const b = new AddressBudget({ maxUnauthenticatedPerAddress: 2, connectionsPerMinutePerAddress: 100 });
    expect([b.take('a'), b.take('a'), b.take('a')]).toEqual([undefined, undefined, 'per_address']);
    expect(b.take('b')).toBeUndefined();
    b.release('a', false);
    expect(b.take('a')).toBeUndefined();
  });

  it('spends a token per new connection, refills them over the minute, and a login gives its token back', () => {
    let now = 0;
    const b = new AddressBudget({ maxUnauthenticatedPerAddress: 100, connectionsPerMinutePerAddress: 3 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(b.take('a')).toBeUndefined();
      b.release('a', false);
    }
    expect(b.take('a')).toBe('rate');
    now += 20_000; // a third of a minute: one token
    expect(b.take('a')).toBeUndefined();
    expect(b.take('a')).toBe('rate');
    // logged in: the token comes back (a client that opens a connection per file is not slowed)
    b.release('a', true);
    expect(b.take('a')).toBeUndefined();
    expect(b.unauthenticated('a')).toBe(1);
  });

  it('forgets quiet addresses, so memory follows the addresses that are active', () => {
    let now = 0;
    const b = new AddressBudget({ maxUnauthenticatedPerAddress: 5, connectionsPerMinutePerAddress: 1 }, () => now);
    for (let i = 0; i < 1001; i++) {
      b.take(`10.0.${i >> 8}.${i & 255}`);
      b.release(`10.0.${i >> 8}.${i & 255}`, false);
    }
    now += 60_000;
    b.take('192.0.2.1');
    expect((b as unknown as { buckets: Map<string, unknown> }).buckets.size).toBe(1);
  });
});

describe('PreLoginGate', () => {
  const limits = { maxUnauthenticatedPerAddress: 1, connectionsPerMinutePerAddress: 10, handshakeTimeoutMs: 1000 };
  const make = () => {
    const log = { warn: vi.fn() };
    const metrics = { hit: vi.fn() };
    return { log, metrics, gate: new PreLoginGate('sftp', limits, { log: log as never, metrics }) };
  };

  it('refuses over the limit, counting each refusal and logging the first of the minute per address and limit', () => {
    const { gate, log, metrics } = make();
    const first = gate.admit('192.0.2.1', () => undefined);
    expect(first.ok).toBe(true);
    for (let i = 0; i < 5; i++) expect(gate.admit('192.0.2.1', () => undefined)).toEqual({ ok: false, limit: 'per_address' });
    expect(metrics.hit).toHaveBeenCalledTimes(5);
    expect(metrics.hit).toHaveBeenCalledWith('sftp', 'per_address');
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]).toEqual([
      { protocol: 'sftp', address: '192.0.2.1', prelogin: 'per_address', limit: 1, suppressed: 0 },
      'sftp connection refused: too many connections not logged in from this address',
    ]);
    if (first.ok) first.ticket.closed();
    expect(gate.admit('192.0.2.1', () => undefined).ok).toBe(true);
  });

  it('closes a connection that has not logged in within the handshake timeout; a login stops the deadline', () => {
    vi.useFakeTimers();
    try {
      const { gate, metrics } = make();
      const silent = vi.fn();
      const prompt = vi.fn();
      const a = gate.admit('192.0.2.1', silent);
      const b = gate.admit('192.0.2.2', prompt);
      if (!a.ok || !b.ok) throw new Error('not admitted');
      vi.advanceTimersByTime(999);
      b.ticket.loggedIn();
      expect(gate.unauthenticated('192.0.2.2')).toBe(0);
      vi.advanceTimersByTime(1);
      expect(silent).toHaveBeenCalledTimes(1);
      expect(prompt).not.toHaveBeenCalled();
      expect(metrics.hit).toHaveBeenCalledWith('sftp', 'handshake_timeout');
      // the timed-out one no longer holds its address's slot; closing it later changes nothing
      expect(gate.unauthenticated('192.0.2.1')).toBe(0);
      a.ticket.closed();
      expect(gate.unauthenticated('192.0.2.1')).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
