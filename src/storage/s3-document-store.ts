// The S3 driver of the document store (AWS S3 and S3-compatible stores: MinIO, Ceph RGW,
// Cloudflare R2, Garage), through @aws-sdk/client-s3's public commands only.
//
// Keys: <prefix>sha256/ab/cd/<sha256> for content (two levels of fan-out, as the directory
// driver, so listings and consoles stay usable), <prefix>tmp/<uuid> while a large upload is under
// way. Bytes stream in while hashed and are held at most one part (5 MiB) at a time:
// - a file that fits in one part is hashed before it is sent, so it goes straight to its final
//   key with one PutObject (S3 makes an object visible whole or not at all);
// - a larger one is a multipart upload to a temporary key (its name is not known until the last
//   byte), then CopyObject to its final key and the temporary object deleted. A crash in between
//   leaves a temporary object: removeLeftovers() (run by the sweep) deletes those past the grace.
// Content already there is written again all the same (the same bytes under the same key): that
// renews its LastModified, which the port asks for so that the sweep's grace period counts from
// the last put, and costs one request, as the HeadObject that would have skipped it does.
import { randomUUID } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  assertSha256,
  type DocumentStore,
  type ListedObject,
  type ListOptions,
  type PutOptions,
  type ReadOptions,
  type StoredObject,
  StoreLimitError,
} from './document-store.ts';
import { chunksOf, Counted } from './store-bytes.ts';
import { DomainError } from '../domain/errors.ts';
import { isMissing, s3Client, withDeadline, type Call, type CallOptions, type S3Settings } from './s3-calls.ts';
import { SignedPut } from './s3-signed-put.ts';

/** S3's smallest part but the last; also what one upload holds in memory at most. */
const PART_BYTES = 5 * 1024 * 1024;
const SHA256 = /^[0-9a-f]{64}$/;
const HEX = /^[0-9a-f]*$/;

interface Upload {
  key: string;
  id: string;
  parts: { ETag: string; PartNumber: number }[];
}

export class S3DocumentStore implements DocumentStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly signedPut: SignedPut;
  private readonly prefix: string;

  constructor(private readonly s: S3Settings) {
    this.client = s3Client(s);
    this.signedPut = new SignedPut(this.client, s.bucket);
    this.prefix = s.prefix && !s.prefix.endsWith('/') ? `${s.prefix}/` : s.prefix;
  }

  keyOf(sha256: string): string {
    assertSha256(sha256);
    return `${this.prefix}sha256/${fanOut(sha256)}`;
  }

  private call<T>(
    what: string,
    signal: AbortSignal | undefined,
    work: (call: Call) => Promise<T>,
    more?: Omit<CallOptions, 'timeoutMs' | 'signal'>,
  ): Promise<T> {
    return withDeadline(what, { timeoutMs: this.s.timeoutMs, signal, ...more }, work);
  }

  /** The put of a Buffer whose SHA-256 is known is one call, under its deadline: `timeoutMs` when that is the shorter. */
  putWithin(bytes: Buffer, opts: PutOptions, timeoutMs: number): Promise<StoredObject> | undefined {
    if (opts.knownSha256 === undefined || bytes.length >= PART_BYTES) return undefined;
    return this.putKnown(bytes, opts.knownSha256, opts, Math.min(timeoutMs, this.s.timeoutMs));
  }

  /** Held whole and hashed by the caller (every file the intake stages): to its key as it is, not hashed or copied again. */
  private async putKnown(bytes: Buffer, sha256: string, opts: PutOptions, timeoutMs: number): Promise<StoredObject> {
    if (bytes.length > opts.maxBytes) throw new StoreLimitError(opts.maxBytes);
    opts.signal?.throwIfAborted();
    // S3 checks the body against the signed hash (x-amz-content-sha256); keyOf refuses anything but a SHA-256
    await this.putWhole(sha256, bytes, opts.signal, timeoutMs);
    return { sha256, size: bytes.length };
  }

  async put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject> {
    if (opts.knownSha256 !== undefined && Buffer.isBuffer(bytes) && bytes.length < PART_BYTES)
      return this.putKnown(bytes, opts.knownSha256, opts, this.s.timeoutMs);
    const counted = new Counted(opts.maxBytes);
    let part: Buffer[] = [];
    let partSize = 0;
    let upload: Upload | undefined;
    try {
      for await (const chunk of chunksOf(bytes)) {
        opts.signal?.throwIfAborted();
        counted.add(chunk); // refused while it streams: nothing past the limit is read, let alone sent
        part.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
        partSize += chunk.length;
        if (partSize >= PART_BYTES) {
          upload ??= await this.startUpload(opts.signal);
          await this.sendPart(upload, Buffer.concat(part), opts.signal);
          part = [];
          partSize = 0;
        }
      }
      const sha256 = counted.digest();
      const size = counted.size;
      if (!upload) {
        // one chunk (a Buffer given whole) is sent as it is: Buffer.concat would copy it
        await this.putWhole(sha256, part.length === 1 ? part[0]! : Buffer.concat(part), opts.signal);
        return { sha256, size };
      }
      if (partSize > 0 || upload.parts.length === 0) await this.sendPart(upload, Buffer.concat(part), opts.signal);
      await this.finishUpload(upload, sha256, opts.signal);
      upload = undefined;
      return { sha256, size };
    } finally {
      // anything that went wrong on the way: the temporary object or the parts do not stay
      if (upload) await this.dropUpload(upload);
    }
  }

  private async putWhole(sha256: string, body: Buffer, signal?: AbortSignal, timeoutMs = this.s.timeoutMs): Promise<void> {
    const Key = this.keyOf(sha256);
    await withDeadline(
      'PutObject',
      // the body's SHA-256, known or hashed while it streamed in: neither signer hashes it again
      { timeoutMs, signal, payloadSha256: sha256 },
      async (c) => {
        // the hot call (one a file) past the SDK's command stack: s3-signed-put.ts says why
        if (await this.signedPut.put(Key, body, sha256, c.signal)) return;
        await this.client.send(
          c.own(new PutObjectCommand({ Bucket: this.s.bucket, Key, Body: body, ContentLength: body.length, ContentType: 'application/octet-stream' })),
        );
      },
    );
  }

  private async startUpload(signal?: AbortSignal) {
    const key = `${this.prefix}tmp/${randomUUID()}`;
    const out = await this.call('CreateMultipartUpload', signal, (c) =>
      this.client.send(c.own(new CreateMultipartUploadCommand({ Bucket: this.s.bucket, Key: key, ContentType: 'application/octet-stream' }))),
    );
    if (!out.UploadId) throw new Error('S3 CreateMultipartUpload returned no UploadId');
    return { key, id: out.UploadId, parts: [] };
  }

  private async sendPart(u: Upload, body: Buffer, signal?: AbortSignal): Promise<void> {
    const PartNumber = u.parts.length + 1;
    const out = await this.call('UploadPart', signal, (c) =>
      this.client.send(c.own(new UploadPartCommand({ Bucket: this.s.bucket, Key: u.key, UploadId: u.id, PartNumber, Body: body, ContentLength: body.length }))),
    );
    u.parts.push({ ETag: out.ETag ?? '', PartNumber });
  }

  private async finishUpload(u: Upload, sha256: string, signal?: AbortSignal): Promise<void> {
    await this.call('CompleteMultipartUpload', signal, (c) =>
      this.client.send(c.own(new CompleteMultipartUploadCommand({ Bucket: this.s.bucket, Key: u.key, UploadId: u.id, MultipartUpload: { Parts: u.parts } }))),
    );
    try {
      const Key = this.keyOf(sha256);
      // CopySource is bucket/key, URL-encoded per segment (the keys here are [0-9a-z/-] and the prefix's)
      const CopySource = `${this.s.bucket}/${u.key.split('/').map(encodeURIComponent).join('/')}`;
      await this.call('CopyObject', signal, (c) => this.client.send(c.own(new CopyObjectCommand({ Bucket: this.s.bucket, Key, CopySource }))));
    } finally {
      await this.deleteKey(u.key).catch(() => {}); // a leftover is the sweep's (removeLeftovers)
    }
  }

  private async dropUpload(u: { key: string; id: string }): Promise<void> {
    await this.call('AbortMultipartUpload', undefined, (c) =>
      this.client.send(c.own(new AbortMultipartUploadCommand({ Bucket: this.s.bucket, Key: u.key, UploadId: u.id }))),
    ).catch(() => {});
  }

  async get(sha256: string, opts?: ReadOptions): Promise<Buffer> {
    const Key = this.keyOf(sha256);
    return this.call(
      'GetObject',
      opts?.signal,
      async (c) => {
        const out = await this.client.send(c.own(new GetObjectCommand({ Bucket: this.s.bucket, Key })));
        const bytes = await out.Body!.transformToByteArray();
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength); // a view, not a copy
      },
      { missing: sha256 },
    );
  }

  async stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>> {
    const Key = this.keyOf(sha256);
    // the deadline covers the answer's arrival (its timer is cleared then); a body that stalls
    // later is cut by the socket time-out, and the caller's signal still ends it
    const range = opts?.range;
    if (range && range.end <= range.start) return (async function* () {})();
    const Range = range ? `bytes=${range.start}-${range.end - 1}` : undefined;
    const out = await this.call('GetObject', opts?.signal, (c) => this.client.send(c.own(new GetObjectCommand({ Bucket: this.s.bucket, Key, Range }))), {
      missing: sha256,
    });
    return out.Body as AsyncIterable<Uint8Array>;
  }

  async has(sha256: string): Promise<boolean> {
    const Key = this.keyOf(sha256);
    return this.call('HeadObject', undefined, async (c) => {
      try {
        await this.client.send(c.own(new HeadObjectCommand({ Bucket: this.s.bucket, Key })));
        return true;
      } catch (e) {
        if (isMissing(e)) return false;
        throw e;
      }
    });
  }

  async delete(sha256: string): Promise<void> {
    await this.deleteKey(this.keyOf(sha256));
  }

  private async deleteKey(Key: string): Promise<void> {
    await this.call('DeleteObject', undefined, async (c) => {
      try {
        await this.client.send(c.own(new DeleteObjectCommand({ Bucket: this.s.bucket, Key })));
      } catch (e) {
        if (!isMissing(e)) throw e; // absent is what we wanted
      }
    });
  }

  /** Objects in key order (so by SHA-256: the fan-out folders are its own first characters). */
  async *list(opts: ListOptions = {}): AsyncIterable<ListedObject> {
    const Prefix = `${this.prefix}sha256/`;
    const after = opts.after ?? '';
    if (!HEX.test(after)) throw DomainError.invalid(`Not a SHA-256 or the start of one: ${JSON.stringify(after).slice(0, 80)}`);
    // key order is SHA-256 order (the fan-out folders are its own first characters, and '/' sorts
    // before every hex digit), so the cursor is the key, or the start of one, of `after`
    for await (const o of this.keys(Prefix, after ? Prefix + fanOut(after) : undefined)) {
      const sha256 = o.key.slice(o.key.lastIndexOf('/') + 1);
      if (!SHA256.test(sha256) || sha256 <= after) continue; // not ours
      if (opts.olderThan && o.modifiedAt >= opts.olderThan) continue;
      yield { sha256, size: o.size, modifiedAt: o.modifiedAt };
    }
  }

  /** Deletes temporary objects (of uploads cut by a crash) last written before `olderThan`; returns how many. */
  async removeLeftovers(olderThan: Date): Promise<number> {
    let n = 0;
    for await (const o of this.keys(`${this.prefix}tmp/`)) {
      if (o.modifiedAt >= olderThan) continue;
      await this.deleteKey(o.key);
      n++;
    }
    return n;
  }

  // ListObjects (v1) paged by Marker, the last key seen: every S3 implementation serves it, and
  // s3rver cannot page ListObjectsV2 (its continuation tokens need DES, which OpenSSL 3 lacks).
  private async *keys(Prefix: string, StartAfter?: string): AsyncIterable<{ key: string; size: number; modifiedAt: Date }> {
    let after = StartAfter;
    for (;;) {
      const from = after;
      const page = await this.call('ListObjects', undefined, (c) =>
        this.client.send(c.own(new ListObjectsCommand({ Bucket: this.s.bucket, Prefix, Marker: from, MaxKeys: 1000 }))),
      );
      const contents = page.Contents ?? [];
      for (const o of contents) if (o.Key) yield { key: o.Key, size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) };
      after = contents.at(-1)?.Key;
      if (!page.IsTruncated || !after) return;
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/** ab/cd/<hex> of a SHA-256 or of its first characters ('abc' -> 'ab/c'). */
function fanOut(hex: string): string {
  if (hex.length <= 2) return hex;
  if (hex.length <= 4) return `${hex.slice(0, 2)}/${hex.slice(2)}`;
  return `${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex}`;
}
