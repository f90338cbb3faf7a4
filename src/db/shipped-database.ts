// The empty database the package ships (docs/operations.md, "The embedded default"): made once at
// build time, it spares a first start PGlite's initdb (6 s and ~800 MB of WASM heap on a quiet
// machine). It is a PGlite data directory dump (`dumpDataDir`) of a database migrated to the
// build's migrations; a start from it runs the migrations added since, as on any other database.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from './migrate.ts';
import { PGLITE_EXTENSIONS, pgliteDatabase } from './pglite.ts';

/** Where the build puts the dump: beside this module (dist/db/); running from the sources there is none. */
export const SHIPPED_DATABASE = fileURLToPath(new URL('./empty-database.tar.gz', import.meta.url));

/** Makes the dump: a fresh in-memory database, migrated up to `upTo` (a migration file name; default: all). */
export async function writeEmptyDatabase(file: string, upTo?: string): Promise<void> {
  const pg = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  try {
    await migrate(pgliteDatabase(pg), upTo);
    const dump = await pg.dumpDataDir('gzip');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await pg.close();
  }
}

/**
 * Unpacks a dump into `dir` (an empty PGlite data directory). PGlite's own `loadDataDir` writes it
 * through its WASM file system, 6-10 s on two busy cores; written from here it takes about 0.2 s.
 * The dump is a plain ustar archive of regular files and directories (PGlite writes nothing else).
 */
export function unpackDatabase(file: string, dir: string): void {
  const tar = gunzipSync(fs.readFileSync(file));
  const text = (at: number, len: number) => tar.toString('latin1', at, at + len).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = text(at, 100);
    if (!name) break; // the two zero blocks that end the archive
    const full = [text(at + 345, 155), name].filter(Boolean).join('/');
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const mode = parseInt(text(at + 100, 8).trim() || '600', 8) & 0o700;
    const type = text(at + 156, 1) || '0';
    const target = path.join(dir, path.normalize(`/${full}`)); // absolute names in the archive stay under dir
    if (type === '5') fs.mkdirSync(target, { recursive: true, mode: 0o700 });
    else if (type === '0') {
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, tar.subarray(at + 512, at + 512 + size), { mode: mode || 0o600 });
    } else throw new Error(`${file}: entry ${full} is of tar type "${type}", which a PGlite dump does not hold`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
}
