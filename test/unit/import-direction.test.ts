// The layers of src/ (docs/architecture.md): a folder imports its own files and the folders of the
// layers below it, never one above it nor a neighbour in its own layer.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Top to bottom; the folders of one layer do not import each other. */
export const LAYERS: string[][] = [
  ['main.ts'],
  ['app'],
  ['channels/ftp', 'channels/mail', 'channels/sftp', 'http', 'cli'],
  ['channels/transfer'],
  ['webhooks', 'notifications'],
  ['intake', 'ops'],
  ['queue'],
  ['platform'],
  ['services'],
  ['repositories'],
  ['db', 'config'],
  ['domain'],
];
/** The one file of a lower folder that a folder may use (the rest of that folder is not its business). */
const ONLY: Record<string, Record<string, string[]>> = {
  'channels/ftp': { intake: ['intake/intake-port.ts'] },
  'channels/mail': { intake: ['intake/intake-port.ts'] },
  'channels/sftp': { intake: ['intake/intake-port.ts'] },
  'channels/transfer': { intake: ['intake/intake-port.ts'] },
};

/** The folder a path under src/ belongs to: its first segment, two for channels. */
export function folderOf(rel: string): string {
  const parts = rel.split('/');
  if (parts.length === 1) return rel;
  return parts[0] === 'channels' ? parts.slice(0, 2).join('/') : parts[0];
}

function layerOf(folder: string): number {
  const i = LAYERS.findIndex((l) => l.includes(folder));
  if (i < 0) throw new Error(`src/${folder} has no layer in the import-direction test: add it (and to docs/architecture.md)`);
  return i;
}

/** Problems with one import from file `from` of module `to` (paths relative to src/). */
export function checkImport(from: string, to: string): string | undefined {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) return undefined;
  const [la, lb] = [layerOf(a), layerOf(b)];
  if (lb <= la) return `${from} imports ${to}: ${b} is ${lb < la ? 'above' : 'beside'} ${a}`;
  const only = ONLY[a]?.[b];
  if (only && !only.includes(to)) return `${from} imports ${to}: ${a} may use only ${only.join(', ')} of ${b}`;
  return undefined;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|mts|mjs)$/.test(e.name) ? [p] : [];
  });
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

describe('import direction', () => {
  it('the rule itself: upward, sideways and private imports are caught, downward ones pass', () => {
    expect(checkImport('http/server.ts', 'app/container.ts')).toMatch(/app is above http/);
    expect(checkImport('channels/ftp/a.ts', 'channels/mail/b.ts')).toMatch(/beside/);
    expect(checkImport('channels/ftp/a.ts', 'intake/intake-service.ts')).toMatch(/may use only intake\/intake-port.ts/);
    expect(checkImport('domain/ids.ts', 'config/config.ts')).toMatch(/above/);
    expect(checkImport('channels/ftp/a.ts', 'intake/intake-port.ts')).toBeUndefined();
    expect(checkImport('app/container.ts', 'services/account-service.ts')).toBeUndefined();
    expect(() => checkImport('nowhere/x.ts', 'domain/ids.ts')).toThrow(/no layer/);
  });

  it('no file of src/ imports upward', () => {
    const problems: string[] = [];
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const from = path.relative(SRC, file);
      for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const to = path.relative(SRC, path.resolve(path.dirname(file), m[1]));
        const problem = checkImport(from, to);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  // Services are handed their repositories (app/container.ts builds them once): they import types only.
  it('services import repositories as types only', () => {
    const valueImports = (text: string) => [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s*['"]\.\.\/repositories\/([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(valueImports(`import { invoiceRepository } from '../repositories/invoice-repository.ts';`)).toEqual(['invoice-repository.ts']);
    expect(valueImports(`import type { Repositories } from '../repositories/repositories.ts';`)).toEqual([]);
    const problems = sourceFiles(path.join(SRC, 'services')).flatMap((file) =>
      valueImports(fs.readFileSync(file, 'utf8')).map((to) => `${path.relative(SRC, file)} imports repositories/${to} as a value`),
    );
    expect(problems).toEqual([]);
  });
});
