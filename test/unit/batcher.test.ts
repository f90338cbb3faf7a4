// Group commit's pure logic (src/intake/batcher.ts): who joins which flush, the caps, and
// how a flush's outcome reaches every submitter.
import { describe, expect, it } from 'vitest';
import { Batcher, takeBatch, type Outcome } from '../../src/intake/batcher.ts';

/** A flush the test ends by hand, recording the batches it was given. */
function manualFlush() {
  const batches: string[][] = [];
  const ends: ((outcomes: Outcome<string>[] | Error) => void)[] = [];
  const flush = (items: string[]) => {
    batches.push(items);
    return new Promise<Outcome<string>[]>((resolve, reject) => ends.push((o) => (o instanceof Error ? reject(o) : resolve(o))));
  };
  const allOk = (i: number) => ends[i](batches[i].map((v) => ({ ok: true, value: v.toUpperCase() })));
  return { batches, ends, flush, allOk };
}

describe('takeBatch', () => {
  const w = (...bytes: number[]) => bytes.map((b) => ({ bytes: b }));
  it('takes up to the count cap, from the front', () => {
    const waiting = w(1, 1, 1, 1, 1);
    expect(takeBatch(waiting, { maxItems: 3, maxBytes: 100 })).toHaveLength(3);
    expect(waiting).toHaveLength(2);
  });
  it('stops before the item that would pass the bytes cap', () => {
    const waiting = w(40, 50, 20, 1);
    expect(takeBatch(waiting, { maxItems: 10, maxBytes: 100 }).map((x) => x.bytes)).toEqual([40, 50]);
    expect(waiting.map((x) => x.bytes)).toEqual([20, 1]);
  });
  it('always takes the first item, even one larger than the cap', () => {
    const waiting = w(500, 1);
    expect(takeBatch(waiting, { maxItems: 10, maxBytes: 100 }).map((x) => x.bytes)).toEqual([500]);
  });
  it('takes nothing from nothing', () => {
    expect(takeBatch([], { maxItems: 10, maxBytes: 100 })).toEqual([]);
  });
});

describe('Batcher', () => {
  const bytes = (s: string) => s.length;

  it('flushes the first item at once, alone, and the ones arriving meanwhile together next', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 64, maxBytes: 1000 }, bytes);
    const first = b.submit('a');
    expect(m.batches).toEqual([['a']]); // at once: no timer, no waiting for company
    const rest = ['b', 'c', 'd'].map((x) => b.submit(x));
    expect(b.backlog).toBe(3);
    m.allOk(0);
    expect(await first).toBe('A');
    await expect.poll(() => m.batches.length).toBe(2);
    expect(m.batches[1]).toEqual(['b', 'c', 'd']);
    m.allOk(1);
    expect(await Promise.all(rest)).toEqual(['B', 'C', 'D']);
  });

  it('keeps the caps: what does not fit waits for the following flush', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 2, maxBytes: 5 }, bytes);
    const all = [b.submit('x'), b.submit('aa'), b.submit('bb'), b.submit('ccc'), b.submit('d')];
    m.allOk(0);
    await expect.poll(() => m.batches.length).toBe(2);
    m.allOk(1);
    await expect.poll(() => m.batches.length).toBe(3);
    m.allOk(2);
    await Promise.all(all);
    expect(m.batches).toEqual([['x'], ['aa', 'bb'], ['ccc', 'd']]);
  });

  it('a flush that throws fails every item of its batch with its error, and the next batch still runs', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 64, maxBytes: 1000 }, bytes);
    const first = b.submit('a');
    const group = [b.submit('b'), b.submit('c')];
    m.allOk(0);
    await first;
    await expect.poll(() => m.batches.length).toBe(2);
    const later = b.submit('d');
    const boom = new Error('database away');
    m.ends[1](boom);
    for (const p of group) await expect(p).rejects.toBe(boom);
    await expect.poll(() => m.batches.length).toBe(3);
    m.allOk(2);
    expect(await later).toBe('D');
  });

  it('gives each item its own outcome: one failure fails only its submitter', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 64, maxBytes: 1000 }, bytes);
    const first = b.submit('a');
    const [good, bad] = [b.submit('b'), b.submit('c')];
    m.allOk(0);
    await first;
    await expect.poll(() => m.batches.length).toBe(2);
    const refused = new Error('bad row');
    m.ends[1]([
      { ok: true, value: 'B' },
      { ok: false, error: refused },
    ]);
    expect(await good).toBe('B');
    await expect(bad).rejects.toBe(refused);
  });

  it('an item the flush gave no outcome for is rejected, never left waiting', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 64, maxBytes: 1000 }, bytes);
    const p = b.submit('a');
    m.ends[0]([]);
    await expect(p).rejects.toThrow(/no outcome/);
  });

  it('flushes at once again after going idle', async () => {
    const m = manualFlush();
    const b = new Batcher(m.flush, { maxItems: 64, maxBytes: 1000 }, bytes);
    const p = b.submit('a');
    m.allOk(0);
    await p; // the flush loop ended in the same turn that settled it, nothing waiting
    const q = b.submit('b');
    expect(m.batches).toEqual([['a'], ['b']]);
    m.allOk(1);
    expect(await q).toBe('B');
  });
});
