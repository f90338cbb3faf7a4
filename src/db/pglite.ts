import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Row } from './database.ts';

const SHARED_BUFFERS = '16MB';

/**
 * Embedded PostgreSQL in WASM. It is single-process: a lock file in the data directory makes a
 * second process fail with a clear message instead of corrupting the database.
 * `dataDir` undefined opens an in-memory database (tests).
 */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  let releaseLock = () => {};
  if (dataDir) {
    // the database holds every account's data: only the service's user may read it
    for (const dir of [dataDir, path.join(dataDir, 'pglite')]) privateDir(dir);
    releaseLock = takeLock(path.join(dataDir, 'pglite.lock'));
  }
  const db = await PGlite.create(dataDir ? path.join(dataDir, 'pglite') : undefined, {
    parsers: { 20: (v: string) => Number(v) },
    // PostgreSQL's 128 MB of shared buffers sit in the WASM heap from the start (about 130 MB of
    // an idle process's memory); the files it reads are in the OS page cache anyway
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  });
  return {
    kind: 'pglite',
    async query<T extends Row>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params)).rows;
    },
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: async <T extends Row>(sql: string, params?: unknown[]) => (await tx.query<T>(sql, params)).rows,
          exec: async (script) => void (await tx.exec(script)),
        }),
      ),
    async close() {
      await db.close();
      releaseLock();
    },
  };
}

/** Creates the directory 0700, or tightens an existing one we own. */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.chmodSync(dir, 0o700);
  } catch {
    // not ours (a mounted volume): its owner decides
  }
}

export class DatabaseLockedError extends Error {}

function takeLock(file: string): () => void {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const pid = Number(fs.readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new DatabaseLockedError(
        `The embedded database in ${path.dirname(file)} is in use by process ${pid}. PGlite is single-process: ` +
          'run every role in one process, or set DATABASE_URL to a PostgreSQL server to run roles in several processes.',
      );
    }
    fs.writeFileSync(file, String(process.pid)); // stale lock of a dead process
  }
  return () => fs.rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
