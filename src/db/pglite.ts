import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Row } from './database.ts';

/**
 * Embedded PostgreSQL in WASM. It is single-process: a lock file in the data directory makes a
 * second process fail with a clear message instead of corrupting the database.
 * `dataDir` undefined opens an in-memory database (tests).
 */
export async function openPglite(dataDir: string | undefined): Promise<Database> {
  let releaseLock = () => {};
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    releaseLock = takeLock(path.join(dataDir, 'pglite.lock'));
  }
  const db = await PGlite.create(dataDir ? path.join(dataDir, 'pglite') : undefined, {
    parsers: { 20: (v: string) => Number(v) },
  });
  return {
    kind: 'pglite',
    async query<T extends Row>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params)).rows;
    },
    transaction: (fn) =>
      db.transaction((tx) => fn({ query: async <T extends Row>(sql: string, params?: unknown[]) => (await tx.query<T>(sql, params)).rows })),
    async close() {
      await db.close();
      releaseLock();
    },
  };
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
