// A ZIP archive read where it lies in the document store, never whole in memory: yauzl asks for
// byte ranges (the end-of-central-directory record, the directory's entries, one entry's data),
// and each is a ranged read of the stored object (a GetObject with Range on S3, a file read from an
// offset in a directory). yauzl reads the central directory a few dozen bytes at a time, so small
// reads are served from one block read ahead (BLOCK_BYTES): one request per block, not per field.
import { PassThrough, Readable } from 'node:stream';
import yauzl from 'yauzl';
import { DomainError } from '../domain/errors.ts';
import { StoreUnavailableError, type DocumentStore } from '../storage/document-store.ts';

const BLOCK_BYTES = 1024 * 1024;
/** reads at most this long go through the block; longer ones (an entry's data) stream on their own */
const SMALL_READ = 64 * 1024;

/** An archive in the store: its object's SHA-256 and size. */
export interface StoredZip {
  store: Pick<DocumentStore, 'stream'>;
  sha256: string;
  size: number;
}

class StoredReader extends yauzl.RandomAccessReader {
  private block: { start: number; bytes: Buffer } | undefined;

  constructor(private readonly z: StoredZip) {
    super();
  }

  /** bytes [start, end) of the object; a read that breaks off is the store failing, not the archive */
  private async *ranged(start: number, end: number): AsyncIterable<Uint8Array> {
    try {
      yield* await this.z.store.stream(this.z.sha256, { range: { start, end } });
    } catch (e) {
      throw e instanceof DomainError ? e : new StoreUnavailableError(`reading an archive: ${(e as Error)?.message}`, e);
    }
  }

  private async *bytes(start: number, end: number): AsyncIterable<Uint8Array> {
    if (end - start > SMALL_READ) {
      yield* this.ranged(start, end);
      return;
    }
    const b = this.block;
    if (!b || start < b.start || end > b.start + b.bytes.length) {
      const blockEnd = Math.min(this.z.size, Math.max(end, start + BLOCK_BYTES));
      const parts: Uint8Array[] = [];
      for await (const c of this.ranged(start, blockEnd)) parts.push(c);
      this.block = { start, bytes: Buffer.concat(parts) };
    }
    const { start: at, bytes } = this.block!;
    yield bytes.subarray(start - at, end - at);
  }

  // yauzl's hook: a stream of bytes [start, end)
  override _readStreamForRange(start: number, end: number): Readable {
    const out = new PassThrough();
    Readable.from(this.bytes(start, end), { objectMode: false })
      .on('error', (e) => out.destroy(e))
      .pipe(out);
    return out;
  }
}

/** yauzl's reader over a stored object (zip-reader.ts opens it like a buffer). */
export function storedReader(z: StoredZip): yauzl.RandomAccessReader {
  return new StoredReader(z);
}
