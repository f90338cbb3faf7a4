// The document store's contract, as a function of a driver's harness: every driver runs the same
// cases (test/storage/document-store-contract.test.ts adds each with one line).
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreLimitError, StoreMissingError, type DocumentStore } from '../../src/storage/document-store.ts';

export interface StoreHarness {
  store: DocumentStore;
  close(): Promise<void>;
}

/** What `p` rejects with (a test fails when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function* chunked(b: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

/** The contract every driver keeps. `open` gives a fresh, empty store each time (one per case). */
export function storeContract(name: string, open: () => Promise<StoreHarness>): void {
  describe(`document store contract: ${name}`, () => {
    const withStore = (fn: (store: DocumentStore) => Promise<void>) => async () => {
      const h = await open();
      try {
        await fn(h.store);
      } finally {
        await h.close();
      }
    };

    it(
      'puts a buffer and reads it back whole, streamed and by has(), keyed by its SHA-256',
      withStore(async (store) => {
        const bytes = randomBytes(300_000);
        const put = await store.put(bytes, { maxBytes: 5 * 1024 * 1024 });
        expect(put).toEqual({ sha256: sha(bytes), size: bytes.length });
        expect((await store.get(put.sha256)).equals(bytes)).toBe(true);
        expect(Buffer.concat(await all(await store.stream(put.sha256))).equals(bytes)).toBe(true);
        expect(await store.has(put.sha256)).toBe(true);
      }),
    );

    it(
      'streams a range of an object: bytes [start, end), an empty range, the tail',
      withStore(async (store) => {
        const bytes = randomBytes(300_000);
        const { sha256 } = await store.put(bytes, { maxBytes: bytes.length });
        const range = async (start: number, end: number) => Buffer.concat(await all(await store.stream(sha256, { range: { start, end } })));
        expect((await range(1000, 70_000)).equals(bytes.subarray(1000, 70_000))).toBe(true);
        // (not [0, 1): s3rver reads 'bytes=0-0' as the whole object, a bug of the test server's own)
        expect((await range(0, 4)).equals(bytes.subarray(0, 4))).toBe(true);
        expect((await range(299_978, 300_000)).equals(bytes.subarray(299_978))).toBe(true);
        expect((await range(5, 5)).length).toBe(0);
      }),
    );

    it(
      'streams chunks in; the same content twice (and at once) is one object whose modifiedAt is renewed',
      withStore(async (store) => {
        const bytes = randomBytes(200_000);
        const first = await store.put(chunked(bytes, 16_384), { maxBytes: bytes.length });
        const [before] = await all(store.list());
        await expect.poll(() => Date.now()).toBeGreaterThan(before.modifiedAt.getTime() + 1000); // mtimes of some file systems are whole seconds
        const again = await Promise.all([store.put(bytes, { maxBytes: bytes.length }), store.put(chunked(bytes, 1000), { maxBytes: bytes.length })]);
        expect(again).toEqual([first, first]);
        const listed = await all(store.list());
        expect(listed.map((o) => [o.sha256, o.size])).toEqual([[first.sha256, bytes.length]]);
        expect(listed[0].modifiedAt.getTime()).toBeGreaterThan(before.modifiedAt.getTime());
      }),
    );

    it(
      "a Buffer given with its SHA-256 (knownSha256, the intake's own hash) is the object a put without it makes",
      withStore(async (store) => {
        const bytes = randomBytes(120_000);
        const put = await store.put(bytes, { maxBytes: bytes.length, knownSha256: sha(bytes) });
        expect(put).toEqual({ sha256: sha(bytes), size: bytes.length });
        expect((await store.get(put.sha256)).equals(bytes)).toBe(true);
        expect(await store.put(bytes, { maxBytes: bytes.length })).toEqual(put);
        expect((await all(store.list())).map((o) => [o.sha256, o.size])).toEqual([[put.sha256, bytes.length]]);
        expect(await rejection(store.put(bytes, { maxBytes: bytes.length - 1, knownSha256: sha(bytes) }))).toBeInstanceOf(StoreLimitError);
      }),
    );

    it(
      'an empty file is an object too',
      withStore(async (store) => {
        const put = await store.put(Buffer.alloc(0), { maxBytes: 10 });
        expect(put).toEqual({ sha256: sha(Buffer.alloc(0)), size: 0 });
        expect((await store.get(put.sha256)).length).toBe(0);
      }),
    );

    it(
      'refuses bytes past maxBytes while they stream, keeping nothing; exactly maxBytes is fine',
      withStore(async (store) => {
        const limit = 100_000;
        expect((await store.put(randomBytes(limit), { maxBytes: limit })).size).toBe(limit);
        let pulledAfter = false;
        // a client that sends more than the limit and then never finishes: the refusal cannot wait for the end
        async function* endless(): AsyncIterable<Uint8Array> {
          yield randomBytes(60_000);
          yield randomBytes(60_000);
          pulledAfter = true;
          await new Promise(() => {});
        }
        expect(await rejection(store.put(endless(), { maxBytes: limit }))).toBeInstanceOf(StoreLimitError);
        expect(pulledAfter).toBe(false);
        expect(await rejection(store.put(randomBytes(limit + 1), { maxBytes: limit }))).toBeInstanceOf(StoreLimitError);
        expect((await all(store.list())).length).toBe(1);
      }),
    );

    it(
      'a missing object: get and stream reject with StoreMissingError, has is false, delete is fine',
      withStore(async (store) => {
        const absent = sha(randomBytes(8));
        expect(await rejection(store.get(absent))).toBeInstanceOf(StoreMissingError);
        expect(await rejection(store.stream(absent))).toBeInstanceOf(StoreMissingError);
        expect(await store.has(absent)).toBe(false);
        await store.delete(absent);
      }),
    );

    it(
      'keys are SHA-256 only: a path or an upper-case hash is refused, never read',
      withStore(async (store) => {
        for (const bad of ['../../../etc/passwd', 'A'.repeat(64), `${'a'.repeat(63)}/`, '']) {
          expect(await rejection(store.get(bad))).toMatchObject({ kind: 'invalid' });
          expect(await rejection(store.has(bad))).toMatchObject({ kind: 'invalid' });
        }
      }),
    );

    it(
      'deletes, and lists in SHA-256 order from a cursor and by age',
      withStore(async (store) => {
        const puts = await Promise.all(Array.from({ length: 7 }, (_, i) => store.put(Buffer.from(`object ${i}`), { maxBytes: 100 })));
        const sorted = puts.map((p) => p.sha256).sort();
        expect((await all(store.list())).map((o) => o.sha256)).toEqual(sorted);
        expect((await all(store.list({ after: sorted[2] }))).map((o) => o.sha256)).toEqual(sorted.slice(3));
        expect((await all(store.list({ after: sorted[2].slice(0, 3) }))).map((o) => o.sha256)).toEqual(sorted.filter((s) => s > sorted[2].slice(0, 3)));
        expect(await all(store.list({ olderThan: new Date(Date.now() - 3_600_000) }))).toEqual([]);
        expect((await all(store.list({ olderThan: new Date(Date.now() + 3_600_000) }))).length).toBe(7);
        await store.delete(sorted[0]);
        await store.delete(sorted[0]);
        expect(await store.has(sorted[0])).toBe(false);
        expect(await rejection(store.get(sorted[0]))).toBeInstanceOf(StoreMissingError);
        expect((await all(store.list())).map((o) => o.sha256)).toEqual(sorted.slice(1));
      }),
    );
  });
}
