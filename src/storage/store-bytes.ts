// What every driver does with the bytes coming in: hash them, count them, stop past the limit.
import { createHash, type Hash } from 'node:crypto';
import { StoreLimitError } from './document-store.ts';

export function chunksOf(bytes: Buffer | AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (!Buffer.isBuffer(bytes)) return bytes;
  return (async function* () {
    yield bytes;
  })();
}

/** A running SHA-256 and byte count over the chunks a driver writes. */
export class Counted {
  private readonly hash: Hash = createHash('sha256');
  size = 0;
  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; throws StoreLimitError once the total passes maxBytes (before the caller keeps it). */
  add(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) throw new StoreLimitError(this.maxBytes);
    this.hash.update(chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The whole input in memory, limited and hashed (the database driver keeps bytea rows). */
export async function collect(bytes: Buffer | AsyncIterable<Uint8Array>, maxBytes: number, signal?: AbortSignal): Promise<{ buffer: Buffer; sha256: string }> {
  const counted = new Counted(maxBytes);
  if (Buffer.isBuffer(bytes)) {
    counted.add(bytes);
    return { buffer: bytes, sha256: counted.digest() };
  }
  const parts: Uint8Array[] = [];
  for await (const chunk of bytes) {
    signal?.throwIfAborted();
    counted.add(chunk);
    parts.push(chunk);
  }
  return { buffer: Buffer.concat(parts), sha256: counted.digest() };
}

/** Reads a stream whole (get() of drivers that stream). */
export async function concat(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}
