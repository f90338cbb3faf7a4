// config/example.env is the list operators read: every setting of the config schema, nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingEnvNames } from '../../src/config/config.ts';

describe('config/example.env', () => {
  it('lists every setting of the config schema (set or commented out), and only those', () => {
    const text = fs.readFileSync(path.resolve(import.meta.dirname, '../../config/example.env'), 'utf8');
    const listed = [...text.matchAll(/^#?\s?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual([...settingEnvNames].sort());
  });
});
