// Each table is written by its owner's repositories only (issue 48): no statement of one part
// writes another part's table, and a part reads another's tables only where that is listed here
// with its reason. The owners are the folders whose repositories hold a table's SQL; every table
// the migrations leave must have one (a new table is named until it does). Every .ts file of
// src/ is scanned, comments taken out, for the tables its SQL names after insert into / update /
// delete from (writes) and from / join (reads).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../src/db/migrate.ts';
import { ACCOUNT_TABLES } from '../../src/repositories/account-tables.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MIGRATIONS = path.join(SRC, 'db/migrations');

/** The folder of each part that owns tables: its repositories are the only writers of them. */
const PART = { core: 'repositories', intake: 'intake', mail: 'channels/mail', store: 'storage', db: 'db' } as const;
type Part = keyof typeof PART;

/**
 * Each table's owner: an account's table (repositories/account-tables.ts) is the core's unless
 * listed here; every other table is listed here.
 */
const OWNERS: Record<string, Part> = {
  ...Object.fromEntries(Object.keys(ACCOUNT_TABLES).map((t) => [t, 'core' as const])),
  accounts: 'core',
  user_sessions: 'core',
  webhook_deliveries: 'core',
  intake_staging: 'intake',
  intake_records: 'intake',
  intake_history: 'intake',
  mail_mailboxes: 'mail',
  mail_messages: 'mail',
  mail_message_files: 'mail',
  mail_replies: 'mail',
  smtp_messages: 'mail',
  document_objects: 'store',
  // the sweep's candidates (filled by migration 0030's triggers) and its last full listing
  document_object_releases: 'core',
  document_sweeps: 'core',
  // the installation's id: written by the migrations and by the copy of the shipped database (db/pglite.ts)
  installation: 'db',
};

/** Reads of another part's tables, by file, each with its reason. */
const READS: Record<string, Record<string, string>> = {
  'repositories/document-repository.ts': { intake_staging: 'a document made from an import points at its staged object (attach reads its SHA-256)' },
  'repositories/intake-history-repository.ts': { intake_history: "the dashboard's trail of an invoice shows its imports' lines" },
  'repositories/mail-message-view.ts': { mail_messages: "the dashboard shows an import's message" },
  'repositories/object-reference-repository.ts': {
    intake_staging: "the sweep's question: which objects rows point at",
    smtp_messages: "the sweep's question: which objects rows point at",
  },
  'repositories/installation-repository.ts': { installation: 'the installation id (the default Redis prefix)' },
  'intake/intake-repository.ts': { documents: 'whether the document an import attached to shares its staged bytes' },
  'intake/import-list-repository.ts': { invoices: "the file lists show each file's invoice number (invoiceNumberOfSql, the core's)" },
  'intake/test-data-repository.ts': { documents: "a test file whose bytes a younger invoice's document shares stays" },
};

/**
 * Writes of another part's table that are still there, each with its reason: the issue is open
 * while this list is not empty.
 */
const WRITES: Record<string, Record<string, string>> = {};

function migrationTables(): string[] {
  const tables = new Set<string>();
  for (const f of migrationFiles()) {
    const sql = fs.readFileSync(path.join(MIGRATIONS, f), 'utf8').replace(/--.*$/gm, '');
    for (const m of sql.matchAll(/create table (?:if not exists )?(\w+)/gi)) tables.add(m[1]);
    for (const m of sql.matchAll(/drop table (?:if exists )?(\w+)/gi)) tables.delete(m[1]);
  }
  // the migration runner's own bookkeeping
  tables.delete('schema_migrations');
  return [...tables].sort();
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The known tables `text` names, as written or read. */
function tablesNamed(text: string, known: Set<string>): { writes: Set<string>; reads: Set<string> } {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const writes = new Set<string>();
  const reads = new Set<string>();
  for (const m of code.matchAll(/\b(insert\s+into|update|delete\s+from|from|join)\s+(\w+)/gi)) {
    if (!known.has(m[2])) continue;
    (/^(from|join)$/i.test(m[1]) ? reads : writes).add(m[2]);
  }
  return { writes, reads };
}

const partOf = (rel: string): Part | undefined => (Object.entries(PART) as [Part, string][]).find(([, dir]) => rel.startsWith(`${dir}/`))?.[0];

describe('table owners', () => {
  it('the scan itself: writes and reads of known tables, comments left out', () => {
    const known = new Set(['a', 'b', 'c']);
    const found = tablesNamed(
      "// update c\nq.query(`with r as (update a t set x = 1) select * from b join c on true`); /* delete from b */ 'from nowhere'",
      known,
    );
    expect([[...found.writes], [...found.reads].sort()]).toEqual([['a'], ['b', 'c']]);
  });

  it('every table of the migrations has an owner', () => {
    const tables = migrationTables();
    expect(tables.length).toBeGreaterThan(25);
    expect(tables.filter((t) => !(t in OWNERS)).map((t) => `${t}: give it an owner in OWNERS`)).toEqual([]);
    expect(Object.keys(OWNERS).filter((t) => !tables.includes(t))).toEqual([]);
  });

  it("no part writes another part's table, and it reads one only where READS says why", () => {
    const known = new Set(migrationTables());
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = path.relative(SRC, file);
      const { writes, reads } = tablesNamed(fs.readFileSync(file, 'utf8'), known);
      const part = partOf(rel);
      for (const t of writes) {
        if (OWNERS[t] !== part && !WRITES[rel]?.[t])
          wrong.push(`${rel} writes ${t}, a table of ${OWNERS[t]} (${PART[OWNERS[t]]}/): ask its owner's repository, in the same transaction`);
      }
      for (const t of reads) {
        if (OWNERS[t] !== part && !READS[rel]?.[t] && !WRITES[rel]?.[t])
          wrong.push(`${rel} reads ${t}, a table of ${OWNERS[t]}: list it in READS with its reason, or ask its owner`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('READS and WRITES name only what the files still do', () => {
    const known = new Set(migrationTables());
    const stale: string[] = [];
    for (const [list, name] of [
      [READS, 'reads'],
      [WRITES, 'writes'],
    ] as const) {
      for (const [rel, tables] of Object.entries(list)) {
        const found = tablesNamed(fs.readFileSync(path.join(SRC, rel), 'utf8'), known)[name];
        for (const t of Object.keys(tables)) if (!found.has(t)) stale.push(`${rel} no longer ${name} ${t}: take it out of ${name.toUpperCase()}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
