// Temporary uploads held for their rename (src/channels/transfer/held-uploads.ts), shared by FTP
// and SFTP: per account and mode, limited, dropped after the hold time, kept when a hand-over fails.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Scope } from '../../src/domain/scope.ts';
import { HeldUploads, renameHeld } from '../../src/channels/transfer/held-uploads.ts';

const live: Scope = { accountId: 'acc_1', mode: 'live' };
const test: Scope = { accountId: 'acc_1', mode: 'test' };
const other: Scope = { accountId: 'acc_2', mode: 'live' };
const bytes = Buffer.from('%PDF-1.7 ...');

afterEach(() => {
  vi.useRealTimers();
});

describe('held temporary uploads', () => {
  it('are seen by their account and mode only, up to the limit each', () => {
    const held = new HeldUploads({ maxPerScope: 2, holdMs: 60_000 });
    expect(held.hold(live, 'a.pdf.part', bytes)).toBe(true);
    expect(held.hold(live, 'b.pdf.part', bytes)).toBe(true);
    expect(held.canHold(live, 'c.pdf.part')).toBe(false);
    expect(held.hold(live, 'c.pdf.part', bytes)).toBe(false);
    // the same name again replaces it
    expect(held.hold(live, 'a.pdf.part', Buffer.from('%PDF-2'))).toBe(true);
    expect(held.hold(test, 'c.pdf.part', bytes)).toBe(true);
    expect(held.list(live).map((p) => [p.name, p.size])).toEqual([
      ['b.pdf.part', bytes.length],
      ['a.pdf.part', 6],
    ]);
    expect(held.list(test).map((p) => p.name)).toEqual(['c.pdf.part']);
    expect(held.list(other)).toEqual([]);
    expect(held.has(other, 'a.pdf.part')).toBe(false);
    expect(held.remove(other, 'a.pdf.part')).toBe(false);
    expect(held.remove(live, 'a.pdf.part')).toBe(true);
    expect(held.clear()).toBe(2);
  });

  it('are dropped once the hold time has passed without a rename', () => {
    vi.useFakeTimers();
    const expired: string[] = [];
    const held = new HeldUploads({ maxPerScope: 4, holdMs: 10_000, onExpired: (s, name) => expired.push(`${s.mode}:${name}`) });
    held.hold(live, 'a.pdf.part', bytes);
    vi.advanceTimersByTime(6000);
    held.hold(live, 'b.pdf.part', bytes);
    vi.advanceTimersByTime(4000);
    expect(held.list(live).map((p) => p.name)).toEqual(['b.pdf.part']);
    expect(expired).toEqual(['live:a.pdf.part']);
    vi.advanceTimersByTime(6000);
    expect(held.list(live)).toEqual([]);
  });

  it('a rename to a final name hands the bytes on once; a failed hand-over keeps the upload for another try', async () => {
    const held = new HeldUploads({ maxPerScope: 1, holdMs: 60_000 });
    held.hold(live, 'a.pdf.part', bytes);
    await expect(renameHeld(held, live, 'a.pdf.part', { name: 'a.pdf', temp: false }, async () => Promise.reject(new Error('database down')))).rejects.toThrow(
      'database down',
    );
    expect(held.has(live, 'a.pdf.part')).toBe(true);
    expect(await renameHeld(held, live, 'a.pdf.part', { name: 'a.tmp', temp: true }, async () => 'never')).toEqual({ kind: 'held', name: 'a.tmp' });
    const handedOver: Buffer[] = [];
    const [first, second] = await Promise.all([
      renameHeld(held, live, 'a.tmp', { name: 'a.pdf', temp: false }, async (b) => handedOver.push(b)),
      renameHeld(held, live, 'a.tmp', { name: 'a.pdf', temp: false }, async (b) => handedOver.push(b)),
    ]);
    expect(first).toEqual({ kind: 'received', result: 1 });
    expect(second).toBeUndefined();
    expect(handedOver).toEqual([bytes]);
    expect(held.list(live)).toEqual([]);
  });
});
