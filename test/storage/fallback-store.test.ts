// The store of a service during a move (DOCUMENT_STORE_FALLBACK): new bytes go to the new store,
// reads that miss there come from the old one, and the settings refuse a fallback to itself.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { StoreMissingError } from '../../src/storage/document-store.ts';
import { DirectoryStore } from '../../src/storage/directory-store.ts';
import { FallbackStore } from '../../src/storage/fallback-store.ts';

const dirs: string[] = [];
const dir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-fallback-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe('fallback store', () => {
  it('puts into the new store; reads the old one only for what the new one lacks', async () => {
    const [oldStore, newStore] = [await DirectoryStore.open(dir()), await DirectoryStore.open(dir())];
    const store = new FallbackStore(newStore, oldStore);
    const before = randomBytes(1000);
    const tail = await oldStore.put(before, { maxBytes: 2000 }); // arrived before the restart, not moved yet
    const after = randomBytes(1000);
    const put = await store.put(after, { maxBytes: 2000 });
    expect(await newStore.has(put.sha256)).toBe(true);
    expect(await oldStore.has(put.sha256)).toBe(false);
    expect((await store.get(tail.sha256)).equals(before)).toBe(true);
    expect(Buffer.concat(await all(await store.stream(tail.sha256))).equals(before)).toBe(true);
    expect(await store.has(tail.sha256)).toBe(true);
    expect((await store.get(put.sha256)).equals(after)).toBe(true);
    // listings and the sweep's deletes are the new store's only: the old one is the move's source
    expect((await all(store.list())).map((o) => o.sha256)).toEqual([put.sha256]);
    await store.delete(tail.sha256);
    expect(await oldStore.has(tail.sha256)).toBe(true);
    const absent = sha(randomBytes(4));
    await expect(store.get(absent)).rejects.toBeInstanceOf(StoreMissingError);
    expect(store.kind).toBe('directory');
  });

  it('DOCUMENT_STORE_FALLBACK must be another store, with its settings', () => {
    expect(() => loadConfig({ DOCUMENT_STORE: 'database', DOCUMENT_STORE_FALLBACK: 'database' }, {}, { serving: false })).toThrow(
      /DOCUMENT_STORE_FALLBACK names DOCUMENT_STORE itself/,
    );
    expect(() => loadConfig({ DOCUMENT_STORE: 'database', DOCUMENT_STORE_FALLBACK: 's3' }, {}, { serving: false })).toThrow(
      /DOCUMENT_STORE_FALLBACK=s3 needs S3_BUCKET/,
    );
    const c = loadConfig({ DOCUMENT_STORE: 's3', S3_BUCKET: 'b', DOCUMENT_STORE_FALLBACK: 'database' }, {}, { serving: false });
    expect([c.documentStore, c.documentStoreFallback]).toEqual(['s3', 'database']);
  });
});
