// The layers of src/ (docs/architecture.md): a folder imports its own files and the folders of the
// layers below it, never one above it nor a neighbour in its own layer.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Top to bottom; the folders of one layer do not import each other. */
const LAYERS: string[][] = [
  ['main.ts'],
  ['app'],
  ['channels/ftp', 'channels/mail', 'channels/sftp', 'http', 'cli'],
  ['channels/transfer'],
  ['webhooks', 'notifications'],
  ['intake', 'ops'],
  ['queue'],
  ['platform'],
  ['services'],
  ['repositories', 'storage'],
  ['db', 'config', 'formats'],
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
function folderOf(rel: string): string {
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
function checkImport(from: string, to: string): string | undefined {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) return undefined;
  const [la, lb] = [layerOf(a), layerOf(b)];
  if (lb <= la) return `${from} imports ${to}: ${b} is ${lb < la ? 'above' : 'beside'} ${a}`;
  const only = ONLY[a]?.[b];
  if (only && !only.includes(to)) return `${from} imports ${to}: ${a} may use only ${only.join(', ')} of ${b}`;
  return undefined;
}

/** A module of repositories: the core's folder, or a `*-repository.ts` / `*-repositories.ts` of intake or a channel. */
function isRepositoryModule(rel: string): boolean {
  return folderOf(rel) === 'repositories' || /-repositor(y|ies)\.ts$/.test(rel);
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

  // Repositories are handed in (app/container.ts builds them once): outside the composition root
  // (app/) a file that is not itself a repository imports repository modules as types only.
  it('only app/ imports repositories as values', () => {
    const valueImports = (text: string) => [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(valueImports(`import { InvoiceRepository } from '../repositories/invoice-repository.ts';`)).toEqual(['../repositories/invoice-repository.ts']);
    expect(valueImports(`import type { Repositories } from '../repositories/repositories.ts';`)).toEqual([]);
    expect(isRepositoryModule('repositories/scoped.ts')).toBe(true);
    expect(isRepositoryModule('intake/intake-repositories.ts')).toBe(true);
    expect(isRepositoryModule('channels/mail/message-claim-repository.ts')).toBe(true);
    expect(isRepositoryModule('intake/intake-service.ts')).toBe(false);
    const problems = sourceFiles(SRC).flatMap((file) => {
      const from = path.relative(SRC, file);
      if (folderOf(from) === 'app' || isRepositoryModule(from)) return [];
      return valueImports(fs.readFileSync(file, 'utf8'))
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => path.relative(SRC, path.resolve(path.dirname(file), spec)))
        .filter(isRepositoryModule)
        .map((to) => `${from} imports ${to} as a value`);
    });
    expect(problems).toEqual([]);
  });
});

// Libraries: the domain imports only pure ones, and a library's internals (a path into its
// package, `pg/lib/...`) are reached from one adapter file of src/ per library.

/** What the domain may import: hashing. Reading and writing PDF, XML, CMS and SSH keys is src/formats/, the layer above it. */
const DOMAIN_LIBRARIES = ['node:crypto'];
/** Paths into a package that its documentation names as entry points: public, usable anywhere. */
const PUBLIC_SUBPATHS = [
  '@bull-board/api/bullMQAdapter',
  'pdfjs-dist/legacy/build/pdf.mjs',
  'tsx/esm/api',
  'typebox/compile',
  '@electric-sql/pglite/contrib/pg_trgm' /* PGlite's documented way to load an extension */,
  '@smithy/core/transport' /* HttpRequest (@public), @smithy/protocol-http's home since it moved into @smithy/core's exports */,
];
/** The one file of src/ that may import a library's internals (any other path into it). */
const INTERNALS_ADAPTERS: Record<string, string> = {
  libmime: 'channels/mail/mime-names.ts',
  nodemailer: 'channels/mail/recipient-routing.ts',
  ssh2: 'channels/sftp/ssh2-adapter.ts',
};

const LIBRARY_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\brequire\s*\(\s*)['"]((?:node:)?(?:@[\w.-]+\/)?[a-z0-9][\w.-]*(?:\/[\w.@-]+)*)['"]/gm;

/** `pkg` or `@scope/pkg` of a bare specifier, and whether it reaches past the package's own entry. */
function libraryOf(specifier: string): { name: string; internal: boolean } {
  if (specifier.startsWith('node:')) return { name: specifier, internal: false };
  const parts = specifier.split('/');
  const name = parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
  const internal = specifier !== name && !specifier.endsWith('/package.json') && !PUBLIC_SUBPATHS.includes(specifier);
  return { name, internal };
}

/** Libraries one folder owns: nothing outside it imports them (BullMQ: the queue module, as immich's job repository). */
const OWNED_BY: Record<string, string> = { bullmq: 'queue' };

/** Problems with one library import from file `from` (relative to src/). */
function checkLibraryImport(from: string, specifier: string): string | undefined {
  const { name, internal } = libraryOf(specifier);
  const owner = OWNED_BY[name];
  if (owner && folderOf(from) !== owner) return `${from} imports ${specifier}: only src/${owner}/ may (use its API instead)`;
  if (folderOf(from) === 'domain' && !DOMAIN_LIBRARIES.includes(name))
    return `${from} imports ${specifier}: the domain imports only ${DOMAIN_LIBRARIES.join(', ')}`;
  if (internal && INTERNALS_ADAPTERS[name] !== from) {
    const adapter = INTERNALS_ADAPTERS[name];
    return `${from} imports ${specifier}, internals of ${name}: ${adapter ? `only ${adapter} may` : 'no file may (name its one adapter file in INTERNALS_ADAPTERS)'}`;
  }
  return undefined;
}

describe('library imports', () => {
  it('the rule itself: I/O libraries in the domain and internals outside their adapter are caught', () => {
    expect(libraryOf('@bull-board/api/bullMQAdapter')).toEqual({ name: '@bull-board/api', internal: false });
    expect(libraryOf('pg/lib/utils.js')).toEqual({ name: 'pg', internal: true });
    expect(libraryOf('ssh2/package.json')).toEqual({ name: 'ssh2', internal: false });
    expect(checkLibraryImport('domain/ssh-public-keys.ts', 'ssh2')).toMatch(/the domain imports only/);
    expect(checkLibraryImport('domain/time.ts', 'node:fs')).toMatch(/the domain imports only/);
    expect(checkLibraryImport('domain/einvoice.ts', 'fast-xml-parser')).toMatch(/the domain imports only/);
    expect(checkLibraryImport('formats/einvoice.ts', 'fast-xml-parser')).toBeUndefined();
    expect(checkLibraryImport('db/postgres.ts', 'pg/lib/result.js')).toMatch(/no file may/);
    expect(checkLibraryImport('channels/ftp/ftp-server.ts', 'ftp-srv/src/connection.js')).toMatch(/no file may/);
    expect(checkLibraryImport('channels/sftp/ssh2-adapter.ts', 'ssh2/lib/protocol/utils.js')).toBeUndefined();
    expect(checkLibraryImport('formats/ssh-key-parser.ts', 'ssh2')).toBeUndefined();
    expect(checkLibraryImport('intake/intake-queue.ts', 'bullmq')).toMatch(/only src\/queue\/ may/);
    expect(checkLibraryImport('queue/job-queues.ts', 'bullmq')).toBeUndefined();
  });

  it('BullMQ is imported by src/queue/ and no other file, and its objects are reached from there only', () => {
    const files = sourceFiles(SRC).map((f) => ({ rel: path.relative(SRC, f), text: fs.readFileSync(f, 'utf8') }));
    const importers = files.filter((f) => [...f.text.matchAll(LIBRARY_IMPORT)].some((m) => libraryOf(m[1]).name === 'bullmq')).map((f) => f.rel);
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => folderOf(f) !== 'queue')).toEqual([]);
    // the queue module's one door to BullMQ's Queue is for tests that look inside
    expect(files.filter((f) => folderOf(f.rel) !== 'queue' && /\.bullQueue\(/.test(f.text)).map((f) => f.rel)).toEqual([]);
  });

  it('each adapter named for a library internals exists', () => {
    for (const file of Object.values(INTERNALS_ADAPTERS)) expect(fs.existsSync(path.join(SRC, file)), file).toBe(true);
  });

  it('no file of src/ imports an I/O library into the domain or a library internals outside its adapter', () => {
    const problems: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = path.relative(SRC, file);
      for (const m of fs.readFileSync(file, 'utf8').matchAll(LIBRARY_IMPORT)) {
        const problem = checkLibraryImport(from, m[1]);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });
});
