// One list of channels (src/domain/channels.ts): the database's CHECK, the API's schema, the
// dashboard's labels in every language and the code's types follow it. Adding a channel in one
// place only fails here, naming every place still without it (docs/architecture.md, "How to add a
// channel").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrationFiles } from '../../src/db/migrate.ts';
import { INTAKE_CHANNELS } from '../../src/domain/channels.ts';
import { CHANNELS } from '../../src/http/dashboard/format.ts';
import { de } from '../../src/http/dashboard/i18n/de.ts';
import { en } from '../../src/http/dashboard/i18n/en.ts';
import { nl } from '../../src/http/dashboard/i18n/nl.ts';
import { ImportSchema } from '../../src/http/resources/imports/schema.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');
/** Where channel names may stand side by side: the list itself, and the settings (the roles are named like their channels, but are roles). */
const MAY_SPELL_LIST = (file: string) => file === 'domain/channels.ts' || file.startsWith('config/');

/** What is missing from, or extra in, `found` against the list, as one line naming the place. */
function compare(place: string, found: readonly string[], list: readonly string[] = INTAKE_CHANNELS): string[] {
  const missing = list.filter((c) => !found.includes(c));
  const extra = found.filter((c) => !list.includes(c));
  if (!missing.length && !extra.length) return [];
  return [
    `${place}: ${[missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `has ${extra.join(', ')} not in domain/channels.ts` : ''].filter(Boolean).join('; ')}`,
  ];
}

/**
 * The channels intake_staging's CHECK allows after every migration ran: the last statement of the
 * migrations (in the order migrate.ts runs them) that names intake_staging and sets a
 * `check (channel in (...))`; undefined when none does.
 */
function stagingChannelCheck(migrations: string[]): string[] | undefined {
  let found: string[] | undefined;
  for (const text of migrations) {
    for (const statement of text.replace(/--.*$/gm, '').split(';')) {
      const m = /\bintake_staging\b[\s\S]*\bcheck\s*\(\s*channel\s+in\s*\(([^)]*)\)/i.exec(statement);
      if (m) found = [...m[1].matchAll(/'([^']+)'/g)].map((v) => v[1]);
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|mts|eta)$/.test(e.name) ? [p] : [];
  });
}

/** Two channel names side by side in a list or a union type: a second list of channels. */
const SPELLED_LIST = /(['"])(ftp|sftp|mail|http)\1\s*[,|]\s*(['"])(ftp|sftp|mail|http)\3/;

describe('the channel list', () => {
  it('the rule itself: a place missing a channel or having one more is named', () => {
    const list = ['ftp', 'sftp', 'mail', 'http'];
    expect(compare('i18n nl', ['ftp', 'sftp', 'mail', 'http'], list)).toEqual([]);
    expect(compare('i18n nl', ['ftp', 'mail', 'http', 'fax'], list)).toEqual(['i18n nl: missing sftp; has fax not in domain/channels.ts']);
    expect(
      stagingChannelCheck([
        `create table intake_staging (\n  id text primary key,\n  channel text not null check (channel in ('ftp', 'http')),\n  x int check (x > 0)\n);`,
        `-- SFTP\nalter table intake_staging drop constraint intake_staging_channel_check;\nalter table intake_staging add constraint intake_staging_channel_check check (channel in ('ftp', 'sftp', 'http'));`,
        `create table other (channel text check (channel in ('fax')));`,
      ]),
    ).toEqual(['ftp', 'sftp', 'http']);
    expect(SPELLED_LIST.test(`channel: 'ftp' | 'sftp'`)).toBe(true);
    expect(SPELLED_LIST.test(`enum: ['http', 'ftp']`)).toBe(true);
    expect(SPELLED_LIST.test(`if (channel === 'ftp')`)).toBe(false);
  });

  it('the database, the API, the dashboard and the code follow domain/channels.ts', () => {
    const migrations = migrationFiles().map((f) => fs.readFileSync(path.join(SRC, 'db/migrations', f), 'utf8'));
    const spelled = sourceFiles(SRC)
      .map((f) => path.relative(SRC, f))
      .filter((f) => !MAY_SPELL_LIST(f) && SPELLED_LIST.test(fs.readFileSync(path.join(SRC, f), 'utf8')));
    const problems = [
      ...compare(
        'database: the CHECK of intake_staging.channel (add a migration that replaces intake_staging_channel_check)',
        stagingChannelCheck(migrations) ?? [],
      ),
      ...compare(
        'API: the channel enum of ImportSchema (http/resources/imports/schema.ts)',
        (ImportSchema.properties.channel as { enum?: string[] }).enum ?? [],
      ),
      ...compare('dashboard: CHANNELS (http/dashboard/format.ts)', CHANNELS),
      ...Object.entries({ en, nl, de }).flatMap(([lang, m]) =>
        compare(`dashboard: the channel labels of http/dashboard/i18n/${lang}.ts`, Object.keys(m.channel)),
      ),
      ...spelled.map((f) => `src/${f} spells channels out: use INTAKE_CHANNELS, TRANSFER_CHANNELS or KEY_CHANNELS (domain/channels.ts)`),
    ];
    expect(problems).toEqual([]);
  });
});
