// The directory driver: one file per object under DOCUMENT_STORE_DIR (a local disk or a volume every
// node shares), at <root>/ab/cd/<sha256>. A put streams into a temporary file in <root>/.tmp/,
// fsyncs it, renames it to its place and fsyncs that directory: after put() resolves, the object
// survives a crash, and a reader never sees half a file. (.tmp is not fsynced after the rename:
// the object's name is durable with its own directory, and a temporary name that a crash brings
// back is a leftover the sweep removes.) The root must exist: a missing root (an
// unmounted volume) is the store being unavailable, never a reason to write to the disk below it:
// the root carries a marker file, written when the service first opens an empty directory, and a
// root without it (the empty mount point of a volume that went away) is unavailable, not empty.
// A put needs no check of its own for that: .tmp is on the volume, so the empty mount point has
// none and the temporary file's open fails; only then is the marker looked at.
// A put's file-system calls use descriptors (fs's callback API), not fs/promises' FileHandles: a
// put makes eight calls or more, and a FileHandle (an object of its own, tracked until closed)
// made each cost the main thread more (bench/RESULTS.md, 2026-12-02 evening).
import { randomBytes } from 'node:crypto';
import fsc from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  assertSha256,
  StoreMissingError,
  StoreUnavailableError,
  type DocumentStore,
  type ListedObject,
  type ListOptions,
  type PutOptions,
  type ReadOptions,
  type StoredObject,
} from './document-store.ts';
import { chunksOf, concat, Counted } from './store-bytes.ts';
import { DomainError } from '../domain/errors.ts';

/** the directory of puts' temporary files, and the prefix of those an earlier version left in the root */
const TEMP_DIR = '.tmp';
const OLD_TEMP = '.tmp-';
/** the marker of a store's root (see above) */
const STORE_MARKER = '.invoice-intake-document-store';
const FAN = /^[0-9a-f]{2}$/;

/** A file-system failure as the store's error: a DomainError (limit, missing) passes, the rest is "unavailable". */
function storeError(e: unknown, what: string): Error {
  if (e instanceof DomainError) return e;
  if ((e as Error)?.name === 'AbortError') return e as Error;
  return new StoreUnavailableError(`${what}: ${(e as NodeJS.ErrnoException)?.code ?? (e as Error)?.message}`, e);
}

async function* emptyStream(): AsyncIterable<Uint8Array> {}

/** fs's callback API as promises, on descriptors (see above) */
const call = <T>(f: (done: (e: NodeJS.ErrnoException | null, v?: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((e, v) => (e ? reject(e) : resolve(v as T))));
const openFd = (file: string, flags: string, mode?: number) => call<number>((done) => fsc.open(file, flags, mode, done));
const fsyncFd = (fd: number) => call<void>((done) => fsc.fsync(fd, done));
const closeFd = (fd: number) => call<void>((done) => fsc.close(fd, done));

/** The whole chunk (a write to a file may take less than it was given: a full disk's first sign). */
async function writeAll(fd: number, chunk: Uint8Array): Promise<void> {
  for (let at = 0; at < chunk.byteLength; ) at += await call<number>((done) => fsc.write(fd, chunk, at, chunk.byteLength - at, null, done));
}

async function fsyncDir(dir: string): Promise<void> {
  const fd = await openFd(dir, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
}

/** Makes `dir` (durable in its parent); false when it was there already. */
async function makeDir(dir: string): Promise<boolean> {
  try {
    await fs.mkdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  await fsyncDir(path.dirname(dir));
  return true;
}

export class DirectoryStore implements DocumentStore {
  readonly kind = 'directory' as const;
  /** fan-out directories known to exist and be durable (256 + 65,536 at most): a put into one makes none */
  private readonly made = new Set<string>();
  private constructor(private readonly root: string) {}

  /**
   * The store in `root`, which must exist. An empty directory becomes a store (its marker written);
   * a directory with files but no marker is refused: it is not this store (a wrong path, or the
   * mount point of a volume that is not mounted over something else).
   */
  static async open(root: string): Promise<DirectoryStore> {
    const names = await fs.readdir(root).catch((e) => {
      throw new Error(`DOCUMENT_STORE_DIR ${root} cannot be read (${(e as NodeJS.ErrnoException).code}): it must be an existing directory`);
    });
    if (!names.includes(STORE_MARKER)) {
      if (names.length)
        throw new Error(`DOCUMENT_STORE_DIR ${root} holds files but is no document store (no ${STORE_MARKER}): point it at an empty directory or at the store`);
      const h = await fs.open(path.join(root, STORE_MARKER), 'wx', 0o640);
      await h.writeFile('The document store of invoice-intake: objects by SHA-256 under ab/cd/. Do not edit.\n');
      await h.sync();
      await h.close();
      await fsyncDir(root);
    }
    return new DirectoryStore(root); // .tmp is made by the first put (a store opened read-only still opens)
  }

  private pathOf(sha256: string): string {
    assertSha256(sha256);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  /** The fan-out directories of an object, made (and made durable) under an existing root. */
  private async ensureDirs(sha256: string): Promise<string> {
    const top = path.join(this.root, sha256.slice(0, 2));
    const leaf = path.join(top, sha256.slice(2, 4));
    if (this.made.has(leaf)) return leaf;
    // a young store makes a leaf for almost every object: the top level's 256 are remembered too
    for (const dir of this.made.has(top) ? [leaf] : [top, leaf]) {
      await makeDir(dir);
      this.made.add(dir);
    }
    return leaf;
  }

  /** A temporary file's descriptor; ENOENT: no .tmp, so the root is checked (the volume gone), or .tmp made again. */
  private async openTemp(temp: string): Promise<number> {
    try {
      return await openFd(temp, 'wx', 0o640);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await this.checkRoot();
      await makeDir(path.dirname(temp)); // removed behind the store's back
      return openFd(temp, 'wx', 0o640);
    }
  }

  async put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject> {
    // the hash is known only at the end: stream into .tmp, then move into the fan-out
    const temp = path.join(this.root, TEMP_DIR, randomBytes(12).toString('hex'));
    let fd: number | undefined;
    try {
      fd = await this.openTemp(temp);
      const counted = new Counted(opts.maxBytes);
      for await (const chunk of chunksOf(bytes)) {
        opts.signal?.throwIfAborted();
        counted.add(chunk);
        await writeAll(fd, chunk);
      }
      await fsyncFd(fd);
      const closing = fd;
      fd = undefined;
      await closeFd(closing);
      const sha256 = counted.digest();
      opts.signal?.throwIfAborted();
      const dir = await this.moveInto(temp, sha256);
      await fsyncDir(dir);
      return { sha256, size: counted.size };
    } catch (e) {
      if (fd !== undefined) await closeFd(fd).catch(() => {});
      await fs.rm(temp, { force: true }).catch(() => {});
      throw storeError(e, 'writing');
    }
  }

  /** Renames the temporary file to its object's place (the same content again: the same bytes, a fresh modification time). */
  private async moveInto(temp: string, sha256: string): Promise<string> {
    const dir = await this.ensureDirs(sha256);
    try {
      await fs.rename(temp, path.join(dir, sha256));
    } catch (e) {
      // a fan-out directory removed behind the store's back: make both again, once
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !this.made.delete(dir)) throw e;
      this.made.delete(path.dirname(dir));
      await this.checkRoot(); // or the volume went since the open: nothing is made on the disk below
      await fs.rename(temp, path.join(await this.ensureDirs(sha256), sha256));
    }
    return dir;
  }

  async get(sha256: string, opts?: ReadOptions): Promise<Buffer> {
    return concat(await this.stream(sha256, opts));
  }

  async stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>> {
    const file = this.pathOf(sha256);
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        await this.checkRoot();
        throw new StoreMissingError(sha256);
      }
      throw storeError(e, 'reading');
    }
    const range = opts?.range;
    if (range && range.end <= range.start) {
      await handle.close();
      return emptyStream();
    }
    // createReadStream's end is inclusive
    return handle.createReadStream({ signal: opts?.signal, highWaterMark: 256 * 1024, ...(range ? { start: range.start, end: range.end - 1 } : {}) });
  }

  /** A root without its marker is the volume gone (unavailable), not every object missing. */
  private async checkRoot(): Promise<void> {
    try {
      await fs.access(path.join(this.root, STORE_MARKER));
    } catch (e) {
      throw storeError(e, `the directory ${this.root} is not the mounted store`);
    }
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(sha256));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw storeError(e, 'reading');
      await this.checkRoot();
      return false;
    }
  }

  async delete(sha256: string): Promise<void> {
    try {
      await fs.rm(this.pathOf(sha256), { force: true });
    } catch (e) {
      throw storeError(e, 'deleting');
    }
  }

  /** Temporary files of puts cut short (a crash mid-upload) last written before `olderThan`: the sweep's. */
  async removeLeftovers(olderThan: Date): Promise<number> {
    const temps = path.join(this.root, TEMP_DIR);
    const names = async (dir: string) =>
      fs.readdir(dir).catch((e) => {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' && dir === temps) return [];
        throw storeError(e, 'listing');
      });
    const files = [
      ...(await names(temps)).map((n) => path.join(temps, n)),
      ...(await names(this.root)).filter((n) => n.startsWith(OLD_TEMP)).map((n) => path.join(this.root, n)),
    ];
    let removed = 0;
    for (const file of files) {
      const st = await fs.stat(file).catch(() => undefined);
      if (st && st.mtime < olderThan) {
        await fs.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async *list(opts: ListOptions = {}): AsyncIterable<ListedObject> {
    const after = opts.after ?? '';
    const names = async (dir: string) =>
      (
        await fs.readdir(dir).catch((e) => {
          throw storeError(e, 'listing');
        })
      ).sort();
    for (const a of await names(this.root)) {
      if (!FAN.test(a) || a < after.slice(0, 2)) continue;
      for (const b of await names(path.join(this.root, a))) {
        if (!FAN.test(b) || a + b < after.slice(0, 4)) continue;
        for (const name of await names(path.join(this.root, a, b))) {
          if (name <= after || !name.startsWith(a + b) || name.length !== 64) continue;
          const st = await fs.stat(path.join(this.root, a, b, name)).catch(() => undefined); // deleted meanwhile
          if (!st || (opts.olderThan && st.mtime >= opts.olderThan)) continue;
          yield { sha256: name, size: st.size, modifiedAt: st.mtime };
        }
      }
    }
  }
}
