// Time-outs on every store call (DOCUMENT_STORE_TIMEOUT_MS), the same for every driver: a store
// that does not answer in time is unavailable (503 / 451 / a retried job), never a hung upload.
// A put's clock runs only while the store works: while the driver waits for the next chunk of a
// slow client the time is the client's, not the store's.
import {
  StoreUnavailableError,
  type DocumentStore,
  type ListedObject,
  type ListOptions,
  type PutOptions,
  type ReadOptions,
  type StoredObject,
  type UnreferencedCheck,
} from './document-store.ts';
import { chunksOf } from './store-bytes.ts';

/** One call's deadline: aborts `signal` and rejects `expired` once the clock passes `ms` (paused while the client is slow). */
class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private reject!: (e: Error) => void;
  readonly expired = new Promise<never>((_, reject) => (this.reject = reject));
  readonly signal: AbortSignal;

  constructor(
    private readonly ms: number,
    private readonly what: string,
    outer?: AbortSignal,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    this.expired.catch(() => {});
    this.run();
  }

  run(): void {
    this.timer ??= setTimeout(() => {
      const e = new StoreUnavailableError(`${this.what}: no answer within ${this.ms} ms`);
      this.controller.abort(e);
      this.reject(e);
    }, this.ms);
  }

  pause(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  async race<T>(p: Promise<T>): Promise<T> {
    try {
      return await Promise.race([p, this.expired]);
    } finally {
      this.pause();
    }
  }
}

export class TimedStore implements DocumentStore {
  constructor(
    private readonly inner: DocumentStore,
    private readonly ms: number,
  ) {}

  /** the driver's own: a statement that writes its objects runs under the database's time-outs, not the store's */
  get inStatement() {
    return this.inner.inStatement;
  }

  get kind() {
    return this.inner.kind;
  }

  put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject> {
    // bytes held whole wait for no client: the clock runs throughout, and the driver gets the Buffer
    // itself (the database driver keeps it as it is instead of copying the one chunk of a stream)
    if (Buffer.isBuffer(bytes)) return this.whole(bytes, opts);
    const d = new Deadline(this.ms, 'put', opts.signal);
    const source = chunksOf(bytes);
    // the clock stops while the driver waits for the client's next chunk, and runs again once it has it
    const paced = (async function* () {
      const it = source[Symbol.asyncIterator]();
      let done = false;
      try {
        for (;;) {
          d.pause();
          const next = await it.next();
          d.run();
          if (next.done) return void (done = true);
          yield next.value;
        }
      } finally {
        // the driver stopped early (over the limit, a failure): the source is ended too, as for-await would
        if (!done) await it.return?.();
      }
    })();
    return d.race(this.inner.put(paced, { ...opts, signal: d.signal }));
  }

  /** A put of bytes held whole (every file the intake stages): the clock runs throughout. */
  private whole(bytes: Buffer, opts: PutOptions): Promise<StoredObject> {
    // a timer and an AbortController fewer a put where the driver keeps the same deadline itself
    const own = this.inner.putWithin?.(bytes, opts, this.ms);
    if (own) return own;
    const d = new Deadline(this.ms, 'put', opts.signal);
    return d.race(this.inner.put(bytes, { ...opts, signal: d.signal }));
  }

  get(sha256: string, opts?: ReadOptions): Promise<Buffer> {
    const d = new Deadline(this.ms, 'get', opts?.signal);
    return d.race(this.inner.get(sha256, { signal: d.signal }));
  }

  /** The time-out covers opening the stream; the reader paces the rest (a download to a slow client). */
  stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>> {
    const d = new Deadline(this.ms, 'stream');
    return d.race(this.inner.stream(sha256, opts));
  }

  has(sha256: string): Promise<boolean> {
    return new Deadline(this.ms, 'has').race(this.inner.has(sha256));
  }

  delete(sha256: string): Promise<void> {
    return new Deadline(this.ms, 'delete').race(this.inner.delete(sha256));
  }

  async *list(opts?: ListOptions): AsyncIterable<ListedObject> {
    const it = this.inner.list(opts)[Symbol.asyncIterator]();
    for (;;) {
      const next = await new Deadline(this.ms, 'list').race(it.next());
      if (next.done) return;
      yield next.value;
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  /** No deadline of its own: the driver times each of its calls (a sweep may remove many). */
  async removeLeftovers(olderThan: Date): Promise<number> {
    return (await this.inner.removeLeftovers?.(olderThan)) ?? 0;
  }

  removeUnreferenced(sha256s: string[], olderThan: Date, unreferenced: UnreferencedCheck): Promise<number | undefined> {
    return this.inner.removeUnreferenced?.(sha256s, olderThan, unreferenced) ?? Promise.resolve(undefined);
  }
}
