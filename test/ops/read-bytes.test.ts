// readBytes (src/db/database.ts) reads a bytea value as rows of 32 KB pieces, on PGlite and on
// PostgreSQL: the bytes come back exactly, at and around the piece size, empty, null, and not
// there at all; and the worker's load of staged bytes uses it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBytes, type Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';

const PIECE = 32 * 1024;

describe.each(['pglite', 'postgres'] as const)('readBytes on %s', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase(kind);
    await db.query('create table blobs (id int primary key, content bytea)');
  });
  afterAll(() => db?.close());

  const read = (id: number) => readBytes(db, 'select t.content from blobs t where t.id = $1', [id]);

  it('gives back the very bytes, whatever their length', async () => {
    const sizes = [1, 2, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE, 100 * 1024 + 7, 1024 * 1024 + 3];
    for (const [i, size] of sizes.entries()) {
      const bytes = randomBytes(size);
      await db.query('insert into blobs (id, content) values ($1, $2)', [i + 1, bytes]);
      const back = await read(i + 1);
      expect(back?.length, `size ${size}`).toBe(size);
      expect(back!.equals(bytes), `size ${size}`).toBe(true);
    }
  });

  it('tells empty, null and no row apart', async () => {
    await db.query('insert into blobs (id, content) values (100, $1), (101, null)', [Buffer.alloc(0)]);
    expect(await read(100)).toEqual(Buffer.alloc(0));
    expect(await read(101)).toBeNull();
    expect(await read(102)).toBeUndefined();
  });

  it('keeps the pieces in their order', async () => {
    // every piece different, so a swapped pair would show
    const bytes = Buffer.concat(Array.from({ length: 9 }, (_, i) => Buffer.alloc(PIECE, i + 1)));
    await db.query('insert into blobs (id, content) values (200, $1)', [bytes]);
    expect((await read(200))!.equals(bytes)).toBe(true);
  });
});
