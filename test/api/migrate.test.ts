// Migration files run as whole scripts, on PGlite and on PostgreSQL alike: statements with `;` in
// a string or a $$ body are not cut apart, and a failing file rolls back with the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

describe('migration scripts', () => {
  it('runs a script of several statements as one, semicolons in strings and $$ bodies included', async () => {
    await db.transaction((tx) =>
      tx.exec(`
        -- a comment; with a semicolon
        create table script_probe (note text);
        insert into script_probe values ('a;b');
        create function script_probe_count() returns bigint language sql as $$ select count(*) from script_probe; $$;
      `),
    );
    expect(await db.query('select note, script_probe_count() as n from script_probe')).toEqual([{ note: 'a;b', n: 1 }]);
  });

  it('rolls a failing script back whole', async () => {
    await expect(db.transaction((tx) => tx.exec(`create table half_done (x int); select no_such_column from half_done;`))).rejects.toThrow(/no_such_column/);
    expect(await db.query(`select to_regclass('half_done') as t`)).toEqual([{ t: null }]);
  });
});
