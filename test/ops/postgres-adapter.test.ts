// The PostgreSQL adapter (src/db/postgres.ts) against the real driver (pg, whatever version
// the lock file holds) and the machine's PostgreSQL: the values the repositories send and get back
// as they were with pg, prepared statements only where asked and never behind a transaction pooler,
// refused statements keeping their connection, a lost connection and an absent server becoming
// DatabaseUnavailable, transactions that commit or roll back whole, and a transaction's
// statements taking turns on its client (pg 9 refuses a query sent while another runs).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailable, type Database } from '../../src/db/database.ts';
import { databaseAway, openPostgres } from '../../src/db/postgres.ts';
import { createPgDatabase, PG_ADMIN_URL } from '../../testkit/postgres.ts';
import { freePort } from '../../testkit/ports.ts';
import { ROOT } from '../../testkit/paths.ts';

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe('the PostgreSQL adapter', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  const lost: Error[] = [];
  beforeAll(async () => {
    ({ url, drop } = await createPgDatabase());
    db = openPostgres(url, { poolSize: 1, onConnectionError: (e) => lost.push(e) });
    await db.query(
      'create table t (id int primary key, big int8, bytes bytea, doc jsonb, day date, tags text[], at timestamptz, amount numeric(12,2), flag boolean)',
    );
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('sends the values the repositories pass as pg did, and reads them back as pg gave them', async () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const at = new Date('2026-02-01T10:11:12.345Z');
    const insert = 'insert into t values ($1, $2, $3, $4::jsonb, $5, $6::text[], $7, $8, $9)';
    await db.query(insert, [1, 2 ** 40, bytes, JSON.stringify({ a: [1, 'x'] }), '2026-02-01', ['a', 'b"c', 'd,e'], at, '480.00', true], { prepare: true });
    await db.query(insert, [2, undefined, null, { b: 2 }, undefined, [], undefined, null, false]);
    const rows = await db.query('select id, big, bytes, doc, day::text as day, tags, at, amount, flag, 3::int8 as n from t order by id', [], { prepare: true });
    expect(rows).toEqual([
      { id: 1, big: 2 ** 40, bytes, doc: { a: [1, 'x'] }, day: '2026-02-01', tags: ['a', 'b"c', 'd,e'], at, amount: '480.00', flag: true, n: 3 },
      { id: 2, big: null, bytes: null, doc: { b: 2 }, day: null, tags: [], at: null, amount: null, flag: false, n: 3 },
    ]);
    expect(Buffer.isBuffer(rows[0].bytes)).toBe(true);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.keys(rows[0])).toEqual(['id', 'big', 'bytes', 'doc', 'day', 'tags', 'at', 'amount', 'flag', 'n']);
    expect(await db.query('select 1 as a, 2 as b, 3 as a')).toEqual([{ a: 3, b: 2 }]);
    expect(await db.query('select 1 as a where false')).toEqual([]);
    // a column named __proto__ is an own property, never the row's prototype
    const [proto] = await db.query(`select '{"polluted": true}'::jsonb as "__proto__", 1 as a`, [], { prepare: true });
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });

  it('makes a named prepared statement only for a query marked prepare', async () => {
    const prepared = async () => (await db.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements'))[0].n;
    const before = await prepared();
    await db.query('select $1::int + 1 as n', [1]);
    expect(await prepared()).toBe(before);
    for (let i = 0; i < 3; i++) expect(await db.query('select $1::int + 2 as n', [i], { prepare: true })).toEqual([{ n: i + 2 }]);
    expect(await prepared()).toBe(before + 1); // one statement, planned once on this connection
  });

  it('keeps the connection after a statement PostgreSQL refuses, and replaces one that was cut', async () => {
    const pid = async () => (await db.query<{ pid: number }>('select pg_backend_pid() as pid'))[0].pid;
    const before = await pid();
    for (let i = 0; i < 10; i++) {
      await expect(db.query('insert into t (id) values (1)', [], { prepare: i % 2 === 0 })).rejects.toMatchObject({ code: '23505' });
    }
    await expect(db.query('select $1::int', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    expect(await pid()).toBe(before);

    await terminate(before);
    await expect.poll(() => lost.length).toBeGreaterThan(0); // reported for the log, the process goes on
    await expect.poll(async () => pid().catch(() => undefined), { timeout: 5000 }).toEqual(expect.any(Number));
    expect(await pid()).not.toBe(before);
  });

  it('a transaction commits when its function resolves and rolls back whole when it throws', async () => {
    await db.transaction(async (tx) => {
      await tx.exec('insert into t (id) values (10); insert into t (id) values (11)');
      await tx.query('insert into t (id) values ($1)', [12], { prepare: true });
    });
    const boom = new Error('boom');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('insert into t (id) values ($1)', [13]);
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(db.transaction((tx) => tx.query('insert into t (id) values ($1)', [10]))).rejects.toMatchObject({ code: '23505' });
    expect(await db.query('select id from t where id >= 10 order by id')).toEqual([{ id: 10 }, { id: 11 }, { id: 12 }]);
  });

  it('statements sent at once inside a transaction take turns on its client, and a rollback waits for those in flight', async () => {
    // in a process of its own with --throw-deprecation: pg warns once per process when a query is
    // sent while its client runs another (pg 9 refuses it), so a warning there fails this script
    const script = `
      import { openPostgres } from './src/db/postgres.ts';
      const db = openPostgres(process.env.TEST_DB_URL, 1);
      const sums = await db.transaction((tx) => Promise.all([1, 2, 3, 4].map((n) => tx.query('select $1::int * 10 as v', [n]))));
      const boom = new Error('boom');
      const failed = await db.transaction((tx) => Promise.all([
        tx.query('insert into t (id) values (20)'), tx.query('select pg_sleep(0.05)'), tx.query('insert into t (id) values (21)'), Promise.reject(boom),
      ])).catch((e) => e.message);
      const left = await db.query('select id from t where id in (20, 21)');
      console.log(JSON.stringify({ sums, failed, left }));
      await db.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--throw-deprecation', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, TEST_DB_URL: url },
      timeout: 30_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ sums: [[{ v: 10 }], [{ v: 20 }], [{ v: 30 }], [{ v: 40 }]], failed: 'boom', left: [] });
  });

  it('a connection cut inside a transaction fails it as DatabaseUnavailable, and the pool goes on', async () => {
    const failed = db.transaction(async (tx) => {
      const [{ pid }] = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
      await terminate(pid);
      await tx.query('select 1');
    });
    await expect(failed).rejects.toBeInstanceOf(DatabaseUnavailable);
    await expect.poll(async () => db.query('select 1 as one').catch(() => undefined), { timeout: 5000 }).toEqual([{ one: 1 }]);
  });
});

describe('the PostgreSQL adapter behind a transaction pooler', () => {
  it("makes no named prepared statement, even for a query marked prepare (PgBouncer's transaction mode)", async () => {
    const { url, drop } = await createPgDatabase();
    const db = openPostgres(url, { poolSize: 1, pooler: 'transaction' });
    try {
      for (let i = 0; i < 3; i++) expect(await db.query('select $1::int * 2 as n', [i], { prepare: true })).toEqual([{ n: i * 2 }]);
      expect(await db.query('select count(*)::int as n from pg_prepared_statements')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
      await drop();
    }
  });
});

describe('a database that is not there', () => {
  it('is DatabaseUnavailable (503/451), not an error of the statement', async () => {
    const db = openPostgres(`postgres://postgres@127.0.0.1:${await freePort()}/none`, { poolSize: 1 });
    try {
      const err = await db.query('select 1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseUnavailable);
      expect(databaseAway((err as DatabaseUnavailable).cause)).toBe(true);
      await expect(db.transaction(async () => 1)).rejects.toBeInstanceOf(DatabaseUnavailable);
    } finally {
      await db.close();
    }
  });
});
