// The PostgreSQL adapter's patch of pg's query normalisation (src/db/postgres.ts): active on the pg
// version it was checked against, and pg still runs what it is given: prepared statements by name,
// parameters, callbacks (the pool's path) and promises (a transaction's), without changing the
// caller's object; objects that are not plain keep pg's own copy.
import { createRequire } from 'node:module';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { pgQueryConfigPatched } from '../../src/db/postgres.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { PG_ADMIN_URL } from '../../testkit/postgres.ts';

const require = createRequire(import.meta.url);
const utils = require('pg/lib/utils.js') as { normalizeQueryConfig: (config: unknown, values?: unknown, callback?: unknown) => any };

describe('pg query normalisation patch', () => {
  it('is active on the pinned pg version (upgrading pg means checking it again)', () => {
    expect(require('pg/package.json').version).toBe('8.23.1');
    expect(pgQueryConfigPatched).toBe(true);
    expect(utils.normalizeQueryConfig.toString()).not.toContain('cloneQueryConfig'); // pg's own copies through descriptors
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
