// What a benchmark needs to compare the document stores (issue 46): the store its service runs on
// (--store database|directory|s3, s3 being s3rver started here; a directory with its fan-out made,
// unless --young-store), the PostgreSQL it uses
// (--own-postgres: a cluster of its own, fsync on as on the machine's, so that the WAL measured is
// this run's alone and no other session's), and what a file costs where: WAL bytes
// (pg_current_wal_lsn() before and after), database growth, bytes in the store, the store's CPU.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivatePostgres } from '../testkit/private-postgres.ts';
import { startS3Server } from '../testkit/s3-server.ts';
import { DirectoryStore } from '../src/storage/directory-store.ts';
import { cpuMs } from './bench-kit.ts';

type Sql = { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };
export type StoreName = 'database' | 'directory' | 's3';

export interface BenchStore {
  kind: StoreName;
  /** what the service's environment gets */
  env: Record<string, string>;
  /** bytes the store keeps outside PostgreSQL (0 for the database) */
  storedBytes(): number;
  /** CPU of the store's own process so far (s3rver), ms */
  cpuMs(): number;
  /** the store's own process (s3rver), if it has one */
  pid(): number | undefined;
  stop(): Promise<void>;
}

export function storeName(value: string | undefined): StoreName {
  if (value === undefined || value === 'database' || value === 'directory' || value === 's3') return value ?? 'database';
  throw new Error(`--store takes database, directory or s3, not ${value}`);
}

/** Bytes of the files under `dir` as the disk holds them (du), 0 when it is not there. */
function diskBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

/**
 * A directory store as it is after its first ~100,000 objects: every fan-out directory made
 * (256 x 256, about 260 MB of directory blocks). A fresh store makes one, and fsyncs its parent,
 * for almost every object of its first tens of thousands: a cost of its first weeks, which a run of
 * a few thousand files would otherwise measure on every file (--young-store keeps it).
 */
async function seasonDirectory(dir: string): Promise<void> {
  await DirectoryStore.open(dir); // writes the store's marker into the empty directory
  const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
  for (const top of hex) for (const leaf of hex) fs.mkdirSync(path.join(dir, top, leaf), { recursive: true });
}

export async function benchStore(kind: StoreName, work: string, young = false): Promise<BenchStore> {
  if (kind === 'database')
    return { kind, env: { DOCUMENT_STORE: 'database' }, storedBytes: () => 0, cpuMs: () => 0, pid: () => undefined, stop: async () => {} };
  if (kind === 'directory') {
    const dir = path.join(work, 'documents');
    fs.mkdirSync(dir, { recursive: true });
    if (!young) await seasonDirectory(dir);
    return {
      kind,
      env: { DOCUMENT_STORE: 'directory', DOCUMENT_STORE_DIR: dir },
      storedBytes: () => diskBytes(dir),
      cpuMs: () => 0,
      pid: () => undefined,
      stop: async () => {},
    };
  }
  const s3 = await startS3Server('bench');
  return {
    kind,
    env: s3.env('bench/'),
    storedBytes: () => diskBytes(path.join(s3.dir, s3.bucket)),
    cpuMs: () => (s3.pid() ? cpuMs([s3.pid()!]) : 0),
    pid: () => s3.pid(),
    stop: () => s3.destroy(),
  };
}

/** Databases on the machine's PostgreSQL, or on a cluster of this run's own (`own`). */
export async function benchPostgres(own: boolean): Promise<{ create(): Promise<{ url: string; drop(): Promise<void> }>; stop(): Promise<void>; what: string }> {
  if (!own) return { create: () => createPgDatabase(), stop: async () => {}, what: "the machine's PostgreSQL (WAL figures include other sessions' writes)" };
  const server = await startPrivatePostgres({ durable: true });
  return { create: () => createPgDatabase(server.url), stop: () => server.destroy(), what: 'a PostgreSQL of its own (fsync on)' };
}

/** WAL bytes the cluster writes from now until the returned function is called. */
export async function walMeter(sql: Sql): Promise<() => Promise<number>> {
  const [{ lsn }] = (await sql.query('select pg_current_wal_lsn()::text as lsn')).rows;
  return async () => Number((await sql.query('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint as n', [lsn])).rows[0].n);
}

/** Size of the database `sql` is connected to, in bytes. */
export async function databaseBytes(sql: Sql): Promise<number> {
  return Number((await sql.query('select pg_database_size(current_database())::bigint as n')).rows[0].n);
}

/** Where a file's cost went in a phase: WAL, database growth and store bytes per file, the store's CPU. */
export async function storeMeter(
  sql: Sql,
  store: BenchStore,
): Promise<() => Promise<{ walBytes: number; dbBytes: number; storeBytes: number; storeCpuMs: number }>> {
  const [wal, db0, st0, cpu0] = [await walMeter(sql), await databaseBytes(sql), store.storedBytes(), store.cpuMs()];
  return async () => ({
    walBytes: await wal(),
    dbBytes: (await databaseBytes(sql)) - db0,
    storeBytes: store.storedBytes() - st0,
    storeCpuMs: store.cpuMs() - cpu0,
  });
}

/** One line of what a file cost: `files` files in the phase measured. */
export function costLine(c: { walBytes: number; dbBytes: number; storeBytes: number; storeCpuMs: number }, files: number, pgMs: number): string {
  const kb = (n: number) => `${(n / files / 1024).toFixed(1)} KB`;
  return `WAL ${kb(c.walBytes)}, database +${kb(c.dbBytes)}, store +${kb(c.storeBytes)} a file; PostgreSQL CPU ${(pgMs / files).toFixed(2)} ms, store process CPU ${(c.storeCpuMs / files).toFixed(2)} ms a file`;
}
