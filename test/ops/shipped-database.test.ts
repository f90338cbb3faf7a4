// The empty database the build ships (src/db/shipped-database.ts) must be a database like any
// other: a first start from it, with the migrations added since applied on top, has the same
// schema as a database that PGlite's initdb made and that took every migration one by one.
// pg_dump cannot reach PGlite (it runs in this process, and the system's pg_dump 15 refuses
// PostgreSQL 17), so the schema is compared as pg_catalog describes it, in pg_dump's own terms
// (pg_get_*def): tables and columns, constraints, indexes, views, functions, triggers, sequences, types.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { unpackDatabase, writeEmptyDatabase } from '../../src/db/shipped-database.ts';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-shipped-db-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const SCHEMA = `
  select 'column' as kind, c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
    || case when a.attnotnull then ' not null' else '' end || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') as def
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped
  union all select 'constraint', conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    from pg_constraint where connamespace = 'public'::regnamespace
  union all select 'index', pg_get_indexdef(indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relnamespace = 'public'::regnamespace
  union all select 'view', viewname || ' ' || definition from pg_views where schemaname = 'public'
  union all select 'function', pg_get_functiondef(p.oid) from pg_proc p where pronamespace = 'public'::regnamespace
  union all select 'trigger', pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
  union all select 'sequence', sequencename || ' ' || data_type::text || ' ' || increment_by from pg_sequences where schemaname = 'public'
  union all select 'type', t.typname || ' ' || coalesce(string_agg(e.enumlabel, ',' order by e.enumsortorder), '')
    from pg_type t left join pg_enum e on e.enumtypid = t.oid
    where t.typnamespace = 'public'::regnamespace and t.typtype in ('e', 'd', 'c') group by t.typname
  union all select 'extension', extname from pg_extension
  order by 1, 2`;

async function schemaOf(db: Database): Promise<string[]> {
  return (await db.query<{ kind: string; def: string }>(SCHEMA)).map((r) => `${r.kind}: ${r.def}`);
}

const files = migrationFiles();
// a dump made a few migrations ago, as from an older build: the start migrates it the rest of the way
const dumpedUpTo = files[files.length - 4];

describe('the shipped empty database', () => {
  it('started from a dump, then migrated, has the schema of one migrated step by step from initdb', async () => {
    const dump = path.join(work, 'empty-database.tar.gz');
    await writeEmptyDatabase(dump, dumpedUpTo);
    const template = path.join(work, 'template');
    unpackDatabase(dump, template);
    const installedFrom = fs.readFileSync(path.join(template, 'PG_VERSION'), 'utf8').trim();
    expect(installedFrom).toMatch(/^\d+$/);

    const shipped = await openPglite(path.join(work, 'from-dump'), dump);
    const applied = await migrate(shipped);
    expect(applied).toEqual(files.slice(-3));
    const fromDump = await schemaOf(shipped);
    const [{ id: firstId }] = await shipped.query<{ id: string }>('select id from installation');
    await shipped.close();

    const fresh = await openPglite(path.join(work, 'step-by-step'), path.join(work, 'no-such-dump.tar.gz'));
    for (const file of files) expect(await migrate(fresh, file)).toEqual([file]);
    const stepByStep = await schemaOf(fresh);
    await fresh.close();

    expect(stepByStep.length).toBeGreaterThan(100);
    expect(fromDump).toEqual(stepByStep);

    // a second installation from the same package is another installation (its own Redis prefix)
    const second = await openPglite(path.join(work, 'second'), dump);
    const [{ id: secondId }] = await second.query<{ id: string }>('select id from installation');
    await second.close();
    expect(secondId).toMatch(/^[0-9a-f]{12}$/);
    expect(secondId).not.toBe(firstId);
  }, 240_000);

  it('a start cut short while unpacking leaves no half database: the next one unpacks again', async () => {
    const dump = path.join(work, 'empty-database.tar.gz');
    const dataDir = path.join(work, 'cut-short');
    fs.mkdirSync(path.join(dataDir, 'pglite.unpacking', 'base'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pglite.unpacking', 'base', 'half-written'), 'x');
    const db = await openPglite(dataDir, dump);
    expect(await db.query('select version from schema_migrations order by version desc limit 1')).toEqual([{ version: dumpedUpTo }]);
    await db.close();
    expect(fs.existsSync(path.join(dataDir, 'pglite.unpacking'))).toBe(false);
  }, 120_000);
});
