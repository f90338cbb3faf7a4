// The PostgreSQL adapter (src/db/postgres.ts) and its patches of pg (src/db/pg-patches.ts): active
// on the pg version they were checked against; pg still runs what it is given (prepared statements
// by name, parameters, callbacks as the pool passes them, promises as a transaction does) without
// changing the caller's object, and rows come back as pg makes them (column order, duplicates,
// names such as __proto__ or constructor).
import { createRequire } from 'node:module';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { pgPatched, PATCHED_PG_VERSION } from '../../src/db/pg-patches.ts';
import '../../src/db/postgres.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { PG_ADMIN_URL } from '../../testkit/postgres.ts';

const require = createRequire(import.meta.url);
const utils = require('pg/lib/utils.js') as { normalizeQueryConfig: (config: unknown, values?: unknown, callback?: unknown) => any };

describe('pg query normalisation patch', () => {
  it('is active on the pinned pg version (upgrading pg means checking it again)', () => {
    expect(require('pg/package.json').version).toBe(PATCHED_PG_VERSION);
    expect(pgPatched).toBe(true);
    expect(utils.normalizeQueryConfig.toString()).not.toContain('cloneQueryConfig'); // pg's own copies through descriptors
    expect(require('pg/lib/result.js').prototype.addFields.toString()).not.toContain('Object.create(null)');
  });

  it('copies a plain config with its values and callback, leaving the original as it was', () => {
    const config = { name: 's_x', text: 'select $1::int', values: [1] };
    const cb = () => {};
    const copy = utils.normalizeQueryConfig(config, undefined, cb);
    expect(copy).not.toBe(config);
    expect(copy).toEqual({ name: 's_x', text: 'select $1::int', values: [1], callback: cb });
    expect(config).toEqual({ name: 's_x', text: 'select $1::int', values: [1] });
    expect(utils.normalizeQueryConfig({ text: 'select 1' }, [2])).toEqual({ text: 'select 1', values: [2] });
    expect(utils.normalizeQueryConfig('select 1', (() => {}) as unknown)).toMatchObject({ text: 'select 1' });
  });

  it('keeps what a config inherits when it is not a plain object', () => {
    class Config { get text() { return 'select 1'; } }
    expect(utils.normalizeQueryConfig(new Config()).text).toBe('select 1');
  });
});

describe('pg with the patch, on PostgreSQL', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase('postgres');
  });
  afterAll(() => db?.close());

  it('runs prepared and unprepared statements, in and out of transactions', async () => {
    for (let i = 0; i < 3; i++) expect(await db.query('select $1::int + 1 as n', [i], { prepare: true })).toEqual([{ n: i + 1 }]);
    expect(await db.query('select $1::text as s', ['a'])).toEqual([{ s: 'a' }]);
    const inTx = await db.transaction(async (tx) => (await tx.query('select $1::int * 2 as n', [21], { prepare: true }))[0].n);
    expect(inTx).toBe(42);
  });

  it('gives rows as pg does: column order, the last of duplicate names, any column name', async () => {
    const [row] = await db.query('select 1 as b, $1::text as a, null::int as c, now() as t', ['x'], { prepare: true });
    expect(Object.keys(row)).toEqual(['b', 'a', 'c', 't']);
    expect(row).toMatchObject({ b: 1, a: 'x', c: null });
    expect(row.t).toBeInstanceOf(Date);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    const [dup] = await db.query('select 1 as a, 2 as b, 3 as a');
    expect(dup).toEqual({ a: 3, b: 2 });
    expect(Object.keys(dup)).toEqual(['a', 'b']);
    const [odd] = await db.query(`select 1 as constructor, 2 as "hasOwnProperty", '{}'::jsonb as j, 3::int8 as big`);
    expect(Object.getOwnPropertyDescriptor(odd, 'constructor')?.value).toBe(1);
    expect(Object.getOwnPropertyDescriptor(odd, 'hasOwnProperty')?.value).toBe(2);
    expect(odd.j).toEqual({});
    expect(odd.big).toBe(3); // the adapter's own int8 parser, not pg's default string
    // a column named __proto__ becomes an own property, never the row's prototype (pg's own way)
    const [proto] = await db.query(`select '{"polluted": true}'::jsonb as "__proto__", 1 as a`);
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect((proto as { polluted?: boolean }).polluted).toBeUndefined();
    expect(await db.query('select 1 as a where false')).toEqual([]);
  });

  it('leaves rowMode and other options to pg', async () => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      const res = await client.query({ text: 'select 1 as a, 2 as b', rowMode: 'array' });
      expect(res.rows).toEqual([[1, 2]]);
    } finally {
      await client.end();
    }
  });

  it('keeps the connection after a statement PostgreSQL refuses, and replaces one that broke', async () => {
    await db.query('create table uniq (id int primary key)');
    await db.query('insert into uniq values (1)');
    const pid = async () => (await db.query<{ pid: number }>('select pg_backend_pid() as pid'))[0].pid;
    const before = await pid();
    for (let i = 0; i < 20; i++) await expect(db.query('insert into uniq values (1)', [], { prepare: i % 2 === 0 })).rejects.toMatchObject({ code: '23505' });
    expect(await pid()).toBe(before); // the same backend: no reconnect per refusal

    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query('select pg_terminate_backend($1)', [before]);
    } finally {
      await admin.end();
    }
    await expect.poll(async () => pid().catch(() => undefined), { timeout: 5000 }).toEqual(expect.any(Number));
    expect(await pid()).not.toBe(before);
  });
});
