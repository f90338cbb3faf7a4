import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Row } from './database.ts';
import { SHIPPED_DATABASE, unpackDatabase } from './shipped-database.ts';

const SHARED_BUFFERS = '16MB';

/**
 * Embedded PostgreSQL in WASM. It is single-process: a lock file in the data directory makes a
 * second process fail with a clear message instead of corrupting the database.
 * `dataDir` undefined opens an in-memory database (tests). A data directory without a database
 * starts from `shipped` (the build's empty database) when there is one, else from PGlite's initdb.
 */
export async function openPglite(dataDir: string | undefined, shipped = SHIPPED_DATABASE): Promise<Database> {
  let releaseLock = () => {};
  let unpacked = false;
  const pgdata = dataDir && path.join(dataDir, 'pglite');
  if (dataDir && pgdata) {
    // the database holds every account's data: only the service's user may read it
    privateDir(dataDir);
    releaseLock = takeLock(path.join(dataDir, 'pglite.lock'));
    if (!fs.existsSync(path.join(pgdata, 'PG_VERSION')) && fs.existsSync(shipped)) {
      // unpacked aside and renamed: a start cut short leaves no half database behind
      const unpacking = `${pgdata}.unpacking`;
      fs.rmSync(unpacking, { recursive: true, force: true });
      privateDir(unpacking);
      unpackDatabase(shipped, unpacking);
      fs.rmSync(pgdata, { recursive: true, force: true });
      fs.renameSync(unpacking, pgdata);
      unpacked = true;
    }
    privateDir(pgdata);
  }
  const pg = await PGlite.create(pgdata, {
    parsers: { 20: (v: string) => Number(v) },
    // the search's trigram indexes (migration 0027)
    extensions: PGLITE_EXTENSIONS,
    // PostgreSQL's 128 MB of shared buffers sit in the WASM heap from the start (about 130 MB of
    // an idle process's memory); the files it reads are in the OS page cache anyway
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  });
  // every copy of the shipped database would otherwise share its installation id (and so its
  // default Redis prefix) with every other installation of the same package
  if (unpacked) await pg.exec(NEW_INSTALLATION_ID);
  return pgliteDatabase(pg, releaseLock);
}

/** The extensions the migrations create, for every PGlite the service opens (and the shipped database's build). */
export const PGLITE_EXTENSIONS = { pg_trgm };

const NEW_INSTALLATION_ID = `do $$ begin
  if to_regclass('installation') is not null then
    update installation set id = substr(md5(gen_random_uuid()::text), 1, 12), created_at = now();
  end if;
end $$`;

/** The Database interface over an open PGlite; closing it closes PGlite, then runs `onClose`. */
export function pgliteDatabase(db: PGlite, onClose = () => {}): Database {
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
      onClose();
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
