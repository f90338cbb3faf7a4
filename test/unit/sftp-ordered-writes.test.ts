// An SFTP upload's writes as a stream (src/channels/sftp/ordered-writes.ts): in order they go on
// as they come, ahead of the end they wait (bounded) for the gap, a rewrite of bytes passed on is
// refused, and a write's reply (`taken`) waits until the consumer took the bytes.
import { describe, expect, it } from 'vitest';
import { OrderedWrites, type WriteResult } from '../../src/channels/sftp/ordered-writes.ts';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

/** Reads the whole stream (as collect() or a store's put() would). */
async function readAll(w: OrderedWrites): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of w.body()) parts.push(c);
  return Buffer.concat(parts);
}

const taken = (r: WriteResult) => {
  if (!r.ok) throw new Error(`refused: ${r.refusal}`);
  return r.taken;
};

/** Whether the promise has settled by the next turns of the event loop. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

describe('ordered SFTP writes', () => {
  it('writes in order go on as they come; a pipeline reordered within the window is put back in order', async () => {
    const w = new OrderedWrites(1000, 100);
    const all = readAll(w);
    const replies = [w.write(0, bytes(10, 1)), w.write(20, bytes(10, 3)), w.write(10, bytes(10, 2)), w.write(30, bytes(5, 4))].map(taken);
    expect(w.size).toBe(35);
    w.end();
    await Promise.all(replies);
    expect(await all).toEqual(Buffer.concat([bytes(10, 1), bytes(10, 2), bytes(10, 3), bytes(5, 4)]));
  });

  it("a write's reply waits until the consumer took its bytes (back-pressure)", async () => {
    const w = new OrderedWrites(1000, 100);
    const first = taken(w.write(0, bytes(10, 1)));
    expect(await settled(first)).toBe(false);
    const it = w.body()[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual(bytes(10, 1));
    expect(await settled(first)).toBe(false);
    const second = taken(w.write(10, bytes(10, 2)));
    const next = it.next();
    await first;
    expect((await next).value).toEqual(bytes(10, 2));
    expect(await settled(second)).toBe(false);
    w.end();
    expect((await it.next()).done).toBe(true);
    await second;
  });

  it('copies the data: the SSH layer may reuse its buffer', async () => {
    const w = new OrderedWrites(1000);
    const all = readAll(w);
    const data = bytes(4, 7);
    const reply = taken(w.write(0, data));
    data.fill(0);
    w.end();
    await reply;
    expect(await all).toEqual(bytes(4, 7));
  });

  it('a gap still open at the close reads as zeros, as on a disk', async () => {
    const w = new OrderedWrites(1000, 100);
    const all = readAll(w);
    const replies = [w.write(0, bytes(2, 1)), w.write(5, bytes(2, 2))].map(taken);
    w.end();
    await Promise.all(replies);
    expect(await all).toEqual(Buffer.from([1, 1, 0, 0, 0, 2, 2]));
  });

  it('a rewrite of bytes passed on, an overlap of bytes waiting, is refused, and so is everything after it', async () => {
    const w = new OrderedWrites(1000, 100);
    const all = readAll(w).catch((e: Error) => e);
    const first = taken(w.write(0, bytes(10, 1)));
    expect(w.write(5, bytes(10, 9))).toEqual({ ok: false, refusal: 'rewrite' });
    expect(w.write(10, bytes(10, 2))).toEqual({ ok: false, refusal: 'rewrite' });
    await expect(first).rejects.toThrow('rewrite');
    expect(await all).toBeInstanceOf(Error);

    const ahead = new OrderedWrites(1000, 100);
    const waiting = taken(ahead.write(20, bytes(10, 1)));
    expect(ahead.write(25, bytes(10, 1))).toEqual({ ok: false, refusal: 'rewrite' });
    await expect(waiting).rejects.toThrow();
  });

  it('past the cap while streaming: too-large, and the consumer stops with an error (the store keeps nothing)', async () => {
    const w = new OrderedWrites(25, 100);
    const all = readAll(w).catch((e: Error) => e);
    const first = taken(w.write(0, bytes(20, 1)));
    await first;
    expect(w.write(20, bytes(10, 1))).toEqual({ ok: false, refusal: 'too-large' });
    expect(w.write(-1, bytes(1, 1))).toEqual({ ok: false, refusal: 'too-large' });
    expect(await all).toBeInstanceOf(Error);
    expect(new OrderedWrites(100).write(Number.MAX_SAFE_INTEGER, bytes(1, 1))).toEqual({ ok: false, refusal: 'too-large' });
  });

  it('at most the window waits: a write too far ahead, or more unanswered bytes than the window, is refused', async () => {
    const far = new OrderedWrites(1000, 100);
    expect(far.write(95, bytes(10, 1))).toEqual({ ok: false, refusal: 'too-far-ahead' });

    const crowded = new OrderedWrites(1000, 100);
    const replies = [0, 40].map((at) => taken(crowded.write(at, bytes(40, 1))));
    // nothing reads: 80 bytes wait, 40 more would be 120
    expect(crowded.write(80, bytes(40, 1))).toEqual({ ok: false, refusal: 'crowded' });
    for (const r of replies) await expect(r).rejects.toThrow();
  });

  it('a consumer that fails (the store down) or a client gone fails the waiting writes; later ones are refused', async () => {
    const w = new OrderedWrites(1000, 100);
    const waiting = taken(w.write(0, bytes(10, 1)));
    const ahead = taken(w.write(50, bytes(10, 1)));
    w.fail(new Error('store down'));
    await expect(waiting).rejects.toThrow('store down');
    await expect(ahead).rejects.toThrow('store down');
    expect(w.write(10, bytes(10, 1))).toEqual({ ok: false, refusal: 'failed' });
    await expect(readAll(w)).rejects.toThrow('store down');
  });

  it('a consumer that stops reading early fails what was still waiting', async () => {
    const w = new OrderedWrites(1000, 100);
    const first = taken(w.write(0, bytes(10, 1)));
    const second = taken(w.write(10, bytes(10, 2)));
    const consumer = (async () => {
      for await (const _ of w.body()) throw new Error('over the limit');
    })();
    await expect(consumer).rejects.toThrow('over the limit');
    await expect(first).rejects.toThrow();
    await expect(second).rejects.toThrow();
  });
});
