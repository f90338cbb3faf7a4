// docs/configuration.md and config/example.env are written from the config schema: when a setting
// changes and `npm run docs:config` was not run, this fails.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationMarkdown, exampleEnv } from '../../src/config/config-docs.ts';
import { settingEnvNames } from '../../src/config/config.ts';
import { settingEntries } from '../../src/config/schema.ts';

const read = (p: string) => fs.readFileSync(path.resolve(import.meta.dirname, '../..', p), 'utf8');
const REGENERATE = 'differs from the schema: run `npm run docs:config` and commit the result';

describe('the configuration docs', () => {
  it('docs/configuration.md is what the schema generates', () => {
    expect(read('docs/configuration.md'), `docs/configuration.md ${REGENERATE}`).toBe(configurationMarkdown());
  });

  it('config/example.env is what the schema generates, and lists every setting once', () => {
    const text = read('config/example.env');
    expect(text, `config/example.env ${REGENERATE}`).toBe(exampleEnv());
    const listed = [...text.matchAll(/^#?\s?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...settingEnvNames].sort());
  });

  it('every setting has a doc string; names, aliases and keys are unique (the flat view needs unique keys)', () => {
    expect(settingEntries.filter((e) => e.meta.doc.trim().length < 10).map((e) => e.meta.env)).toEqual([]);
    const names = settingEntries.flatMap((e) => [e.meta.env, ...(e.meta.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(settingEntries.map((e) => e.key)).size).toBe(settingEntries.length);
    const doc = configurationMarkdown();
    for (const name of settingEnvNames) expect(doc).toContain(`| \`${name}\` |`);
  });
});
