// The document store's port: where the bytes of received files, documents, XML originals and raw
// SMTP messages live. Rows in the database point at objects by their SHA-256; the bytes are in
// one of three drivers (the database itself, a directory, S3-compatible object storage), chosen
// by DOCUMENT_STORE. Every driver keeps the same promise: put() resolves only once the bytes are
// durable, so a caller that commits its row after put() never points at a missing object.
import type { Queryable } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';

export type StoreKind = 'database' | 'directory' | 's3';

/** One object: its SHA-256 (lower-case hex, 64 characters) and its size in bytes. */
export interface StoredObject {
  sha256: string;
  size: number;
}

export interface PutOptions {
  /** bytes past this many reject with StoreLimitError while streaming, before anything is kept */
  maxBytes: number;
  signal?: AbortSignal;
  /**
   * The SHA-256 (lower-case hex) of `bytes`, a Buffer the caller hashed already (the intake hashes
   * every file it receives, new-import.ts): a driver may key the object by it instead of hashing
   * the bytes again. The caller vouches for it, as for the key of an object written in its own
   * statement (ObjectsInStatement); the S3 driver signs it as x-amz-content-sha256, so S3 refuses
   * a body that does not match it. Ignored with a stream.
   */
  knownSha256?: string;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** stream() only: bytes [start, end) of the object (a ZIP archive read in place, zip-reader.ts) */
  range?: { start: number; end: number };
}

export interface ListOptions {
  /** only objects whose sha256 sorts after this one (a cursor: list() yields in sha256 order) */
  after?: string;
  /** only objects last put before this moment (the sweep's grace period) */
  olderThan?: Date;
}

export interface ListedObject extends StoredObject {
  /** when the object was last put: put() of content already stored renews it (see the sweep) */
  modifiedAt: Date;
}

/** An object for the statement that points at it to write (ObjectsInStatement). */
interface ObjectToWrite {
  sha256: string;
  bytes: Buffer;
}

/**
 * The database driver's objects are rows of the database, so the statement that writes the row
 * pointing at an object can write the object too: one round trip and one commit instead of two
 * (a put, then the row), and the row and its bytes commit together or not at all. The hot
 * statements that stage a received file or an SMTP message ask for it; drivers without it (a
 * directory, S3) leave it undefined and their callers put first, as put() promises.
 */
export interface ObjectsInStatement {
  /** The body of a data-modifying CTE writing `objects` (at least one); appends its parameters to `params`. */
  sql(params: unknown[], objects: ObjectToWrite[]): string;
}

export interface DocumentStore {
  readonly kind: StoreKind;
  /** Only where objects are database rows (the database driver): see ObjectsInStatement. */
  readonly inStatement?: ObjectsInStatement;
  /**
   * Streams bytes in, hashing them; resolves only once they are durable, keyed by their SHA-256.
   * Idempotent: the same content twice is one object, and putting it again renews its modifiedAt,
   * so the sweep (which removes unreferenced objects older than a grace period) never removes an
   * object between a put() and the commit of the row that points at it.
   * Rejects with StoreLimitError past maxBytes while streaming, StoreUnavailableError when the
   * store cannot take it (down, slow, full, read-only).
   */
  put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject>;
  /**
   * put() of bytes held whole that the driver itself ends within `timeoutMs` (settled, its request
   * ended), or undefined, having done nothing, when it cannot promise that for these bytes. For
   * TimedStore only: where the driver keeps the deadline, the put has one instead of two (the S3
   * driver's signed put: one call under its own deadline).
   */
  putWithin?(bytes: Buffer, opts: PutOptions, timeoutMs: number): Promise<StoredObject> | undefined;
  /** The whole object; StoreMissingError when there is none. */
  get(sha256: string, opts?: ReadOptions): Promise<Buffer>;
  /** The object as a stream (large files, downloads); StoreMissingError, before any byte, when there is none. */
  stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>>;
  has(sha256: string): Promise<boolean>;
  /** Removes the object; an absent one is fine. Only the sweep and its tests call this. */
  delete(sha256: string): Promise<void>;
  /** Every object, in sha256 order (resumable with `after`). */
  list(opts?: ListOptions): AsyncIterable<ListedObject>;
  /** Releases connections and handles (the service's shutdown). */
  close?(): Promise<void>;
  /**
   * Removes what uploads cut short left behind (a driver's temporary objects) last written before
   * `olderThan`; the sweep calls it with its grace. Returns how many it removed.
   */
  removeLeftovers?(olderThan: Date): Promise<number>;
  /**
   * The sweep, where the store can do it in one transaction with the rows' check (the database
   * driver): removes those of `sha256s` last put before `olderThan` that `unreferenced` (run in that
   * transaction) names, and returns how many. Undefined: the sweep checks and removes one by one.
   */
  removeUnreferenced?(sha256s: string[], olderThan: Date, unreferenced: UnreferencedCheck): Promise<number | undefined>;
}

/** Those of `sha256s` no committed row points at, asked in the caller's transaction. */
export type UnreferencedCheck = (q: Queryable, sha256s: string[]) => Promise<string[]>;

/**
 * The store cannot be reached or does not answer in time (a passing state): HTTP answers 503 with
 * Retry-After, FTP/SFTP 451, SMTP 451 4.3.0, IMAP leaves the message, workers retry the job.
 */
export class StoreUnavailableError extends DomainError {
  constructor(what: string, cause?: unknown) {
    super('unavailable', `The document store is not available at the moment (${what}); please retry shortly`);
    this.cause = cause;
  }
}

/** No object with this SHA-256: a row that points at it would break the store's promise. */
export class StoreMissingError extends DomainError {
  constructor(readonly sha256: string) {
    super('not_found', `No stored object ${sha256}`);
  }
}

/** The bytes passed maxBytes while streaming in: nothing was kept. */
export class StoreLimitError extends DomainError {
  constructor(readonly maxBytes: number) {
    super('invalid', `The file is larger than ${maxBytes} bytes`);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Whether `s` is an object key: a lower-case hex SHA-256. Drivers refuse anything else (no path tricks). */
const isSha256 = (s: string): boolean => SHA256.test(s);

export function assertSha256(s: string): void {
  if (!isSha256(s)) throw DomainError.invalid(`Not a SHA-256: ${JSON.stringify(s).slice(0, 80)}`);
}
