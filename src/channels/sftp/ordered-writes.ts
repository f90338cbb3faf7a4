// One file being written through an SFTP handle, as a stream: SFTP writes carry offsets and
// clients pipeline several (OpenSSH sftp 64, rclone 64, lftp 16, of 32 KiB each), but send them
// front to back, so the bytes go on to the consumer (the intake's takeUpload: the document store,
// or memory) as they arrive instead of being held until the close. Pure.
//
// - A write at the end of what arrived so far is queued for the consumer; its reply waits until
//   the consumer took it (`taken`), so a slow store slows the client, which waits for replies.
// - A write ahead of the end (a reordered pipeline) is held until the gap before it fills, if it
//   ends within `windowBytes` of the end; at the close a gap still open reads as zeros, as on a disk.
// - A write over bytes already passed on (a rewrite) cannot be honoured once they left: refused.
// - At most `windowBytes` wait (queued or ahead) per file; a client that sends more without
//   waiting for replies is refused, so no client piles up memory while the store is slow.
// The first refusal ends the upload: later writes and the close get the same answer.

export type WriteRefusal = 'too-large' | 'rewrite' | 'too-far-ahead' | 'crowded' | 'failed';

export type WriteResult = { ok: true; taken: Promise<void> } | { ok: false; refusal: WriteRefusal };

interface Pending {
  offset: number;
  data: Buffer;
  taken: () => void;
  failed: (e: unknown) => void;
}

/** The default window: a pipeline of 64 writes of 256 KiB fits, and a PDF (5 MB) in any order. */
const WRITE_WINDOW_BYTES = 16 * 1024 * 1024;

export class OrderedWrites {
  /** bytes accepted front to back (queued or passed on): the next in-order write starts here */
  private next = 0;
  private furthest = 0;
  private readonly queue: Pending[] = [];
  /** the write the consumer holds now (yielded, not yet taken) */
  private current: Pending | undefined;
  /** writes past `next`, by offset, not overlapping */
  private ahead: Pending[] = [];
  private waiting = 0;
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;
  /** why the upload was refused (sticky) */
  refusal: WriteRefusal | undefined;

  constructor(
    readonly maxBytes: number,
    readonly windowBytes = WRITE_WINDOW_BYTES,
  ) {}

  /** The file's size so far (its furthest byte written), for FSTAT. */
  get size(): number {
    return this.furthest;
  }

  /** Copies the data (the SSH layer may reuse its buffer). */
  write(offset: number, data: Buffer): WriteResult {
    if (this.refusal) return { ok: false, refusal: this.refusal };
    if (this.error !== undefined || this.ended) return this.refuse('failed');
    const end = offset + data.length;
    if (!Number.isSafeInteger(offset) || offset < 0 || end > this.maxBytes) return this.refuse('too-large');
    if (offset < this.next || this.ahead.some((p) => offset < p.offset + p.data.length && p.offset < end)) return this.refuse('rewrite');
    if (end - this.next > this.windowBytes) return this.refuse('too-far-ahead');
    if (this.waiting + data.length > this.windowBytes) return this.refuse('crowded');
    let pending!: Pending;
    const taken = new Promise<void>((resolve, reject) => {
      pending = { offset, data: Buffer.from(data), taken: resolve, failed: reject };
    });
    this.waiting += data.length;
    this.furthest = Math.max(this.furthest, end);
    if (offset === this.next) {
      this.enqueue(pending);
      this.fillFromAhead();
    } else {
      this.ahead.push(pending);
      this.ahead.sort((a, b) => a.offset - b.offset);
    }
    this.wake?.();
    return { ok: true, taken };
  }

  /** The close: writes still ahead go on behind zeros for their gaps, and the stream ends. */
  end(): void {
    if (this.refusal || this.error !== undefined || this.ended) return;
    for (const p of this.ahead) {
      if (p.offset > this.next) {
        const zeros = Buffer.alloc(p.offset - this.next);
        this.waiting += zeros.length;
        this.enqueue({ offset: this.next, data: zeros, taken: () => {}, failed: () => {} });
      }
      this.enqueue(p);
    }
    this.ahead = [];
    this.ended = true;
    this.wake?.();
  }

  /** The upload cannot go on (the client left, the consumer failed): the consumer's read throws `e`, waiting writes reject. */
  fail(e: unknown): void {
    if (this.error !== undefined) return;
    this.error = e ?? new Error('upload failed');
    for (const p of [this.current, ...this.queue, ...this.ahead]) p?.failed(this.error);
    this.current = undefined;
    this.queue.length = 0;
    this.ahead = [];
    this.waiting = 0;
    this.wake?.();
  }

  /** The bytes in order, for the consumer; each write's `taken` resolves when the consumer asks for more after it. */
  async *body(): AsyncIterable<Uint8Array> {
    try {
      for (;;) {
        if (this.error !== undefined) throw this.error;
        const p = this.queue.shift();
        if (p) {
          this.waiting -= p.data.length;
          this.current = p;
          yield p.data;
          this.current = undefined;
          p.taken();
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      // the consumer stopped early (it threw, e.g. the store refused): nothing more is taken
      if (!this.ended || this.queue.length) this.fail(this.error ?? new Error('the upload is no longer read'));
    }
  }

  private refuse(refusal: WriteRefusal): WriteResult {
    this.refusal = refusal;
    this.fail(new Error(`upload refused: ${refusal}`));
    return { ok: false, refusal };
  }

  private enqueue(p: Pending): void {
    this.queue.push(p);
    this.next = p.offset + p.data.length;
  }

  private fillFromAhead(): void {
    while (this.ahead.length && this.ahead[0].offset === this.next) this.enqueue(this.ahead.shift()!);
  }
}
