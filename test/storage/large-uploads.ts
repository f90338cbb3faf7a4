// What the streamed-upload tests (FTP, SFTP, POST /v2/imports raw) share: the service's memory
// growth while some work runs, in this (the test's) process, where the service runs too (a
// collection before each sample, so what is measured is what the service holds, not garbage not
// yet collected); the large archives they send; the store each runs on.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Config } from '../../src/config/config.ts';
import type { DocumentStore } from '../../src/storage/document-store.ts';
import type { S3Server } from '../../testkit/s3-server.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The largest growth of RSS, and of the heap with the buffers outside it, while `work` runs. */
export async function growth<T>(work: () => Promise<T>): Promise<{ result: T; rss: number; heap: number }> {
  gc();
  const base = process.memoryUsage();
  const heapOf = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
  let rss = 0;
  let heap = 0;
  const sample = setInterval(() => {
    gc();
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss - base.rss);
    heap = Math.max(heap, heapOf(m) - heapOf(base));
  }, 200);
  try {
    return { result: await work(), rss, heap };
  } finally {
    clearInterval(sample);
  }
}

/**
 * The RSS bound of the streamed-upload tests: below the 92 MB archives (and the 100 MB cap), so a
 * process that held one whole could not stay under it. The heap bound (64 MB, after a collection)
 * is the tight one; RSS is also what the allocator keeps from earlier work and what the machine's
 * load moves (63-64 MB seen on a loaded machine).
 */
export const RSS_BOUND_BYTES = 90 * 1024 * 1024;

/** `zip -0` (stored, as scanners and scripts send them) of what `write` puts in a fresh folder under `scratch`: the archive's path. */
export async function storedZip(scratch: string, name: string, write: (dir: string) => Promise<void> | void): Promise<string> {
  const dir = fs.mkdtempSync(path.join(scratch, 'in-'));
  await write(dir);
  const out = path.join(scratch, name);
  execFileSync('zip', ['-q', '-0', '-X', '-r', out, '.'], { cwd: dir });
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

/** A fresh store of `kind`: a directory under `scratch`, or a prefix of its own in `s3`'s bucket. */
export function largeUploadStore(kind: 'directory' | 's3', scratch: string, s3: S3Server, prefix: string): Partial<Config> {
  if (kind === 'directory') return { documentStore: 'directory', documentStoreDir: fs.mkdtempSync(path.join(scratch, 'store-')) };
  return {
    documentStore: 's3',
    s3Endpoint: s3.endpoint,
    s3Bucket: s3.bucket,
    s3Prefix: `${prefix}-${Date.now()}/`,
    s3Region: 'us-east-1',
    s3ForcePathStyle: true,
  };
}

/** Every object's SHA-256, sorted: what a refused or cut-short upload must leave as it was. */
export async function storedNames(store: DocumentStore): Promise<string[]> {
  const names: string[] = [];
  for await (const o of store.list()) names.push(o.sha256);
  return names.sort();
}
