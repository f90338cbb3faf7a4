// The hidden step of a new resource's table, made explicit: every table with an account_id column
// is in repositories/account-tables.ts, saying what the test-data purge does with its test rows.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../src/db/migrate.ts';
import { ACCOUNT_TABLES } from '../../src/repositories/account-tables.ts';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../src/db/migrations');

/** The tables the migrations give an account_id column (in their create table, or added later), and those they drop. */
function accountOwnedTables(migrations: string[]): string[] {
  const owned = new Set<string>();
  for (const raw of migrations) {
    const sql = raw.replace(/--.*$/gm, '');
    for (const m of sql.matchAll(/create table (?:if not exists )?(\w+)\s*\(([\s\S]*?)\n\);/gi)) if (/^\s*account_id\s/im.test(m[2])) owned.add(m[1]);
    for (const m of sql.matchAll(/alter table (\w+) add column (?:if not exists )?account_id\b/gi)) owned.add(m[1]);
    for (const m of sql.matchAll(/drop table (?:if exists )?(\w+)/gi)) owned.delete(m[1]);
  }
  return [...owned].sort();
}

describe('account-owned tables', () => {
  it('the rule itself: a table with account_id is found, one without is not', () => {
    expect(
      accountOwnedTables([
        'create table a (\n  id text,\n  account_id text not null\n);\ncreate table b (\n  id text\n);',
        '-- create table c (\n  account_id text\n);\nalter table b add column account_id text;',
      ]),
    ).toEqual(['a', 'b']);
  });

  it('every table of the migrations with an account_id column is in ACCOUNT_TABLES, and only those', () => {
    const tables = accountOwnedTables(migrationFiles().map((f) => fs.readFileSync(path.join(MIGRATIONS, f), 'utf8')));
    expect(tables.length).toBeGreaterThan(15);
    const missing = tables
      .filter((t) => !(t in ACCOUNT_TABLES))
      .map((t) => `${t}: add it to src/repositories/account-tables.ts (purge its test rows, or say why they are kept)`);
    const extra = Object.keys(ACCOUNT_TABLES)
      .filter((t) => !tables.includes(t))
      .map((t) => `${t}: in account-tables.ts but no migration gives it an account_id`);
    expect([...missing, ...extra]).toEqual([]);
  });
});
