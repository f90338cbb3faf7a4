// Group commit, the pure part: items submitted while a flush is running wait and go together in
// the next one, so a busy intake pays one statement (and one commit) for many: received files
// (staging-group.ts), new invoices' look-ups of the files waiting for them (intake-service.ts).
// When nothing is running, an item flushes at once: an idle intake adds no latency. One flush at
// a time (measured: four side by side grouped nothing on the FTP benchmark and cost PostgreSQL
// 10 % more a file); a batch is capped by count and bytes (the first item always goes).

export interface BatchCaps {
  maxItems: number;
  maxBytes: number;
}

/** What a flush says of each item, in the batch's order. */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };
export const ok = <O>(value: O): Outcome<O> => ({ ok: true, value });
export const failed = <O>(error: unknown): Outcome<O> => ({ ok: false, error });

interface Waiting<I, O> {
  item: I;
  bytes: number;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** The next batch taken from the front of `waiting` (removed from it): at least one, within the caps. */
export function takeBatch<T extends { bytes: number }>(waiting: T[], caps: BatchCaps): T[] {
  let n = 0;
  let bytes = 0;
  while (n < waiting.length && n < caps.maxItems && (n === 0 || bytes + waiting[n].bytes <= caps.maxBytes)) bytes += waiting[n++].bytes;
  return waiting.splice(0, n);
}

export class Batcher<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private flushing = false;

  /**
   * @param flush handles a batch; it resolves with one outcome per item, and a throw fails every
   *   item of the batch with that error (each submitter gets it: nobody's item is dropped silently)
   */
  constructor(
    private readonly flush: (items: I[]) => Promise<Outcome<O>[]>,
    private readonly caps: BatchCaps,
    private readonly bytesOf: (item: I) => number,
  ) {}

  /** Resolves or rejects with this item's outcome, once the flush that carried it has ended. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, bytes: this.bytesOf(item), resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  /** Items waiting for a flush (not counting the one running). */
  get backlog(): number {
    return this.waiting.length;
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = takeBatch(this.waiting, this.caps);
        let outcomes: Outcome<O>[];
        try {
          outcomes = await this.flush(batch.map((w) => w.item));
        } catch (error) {
          outcomes = batch.map(() => ({ ok: false, error }));
        }
        batch.forEach((w, i) => {
          const o = outcomes[i] ?? { ok: false, error: new Error('The staging flush gave no outcome for this file') };
          if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        });
      }
    } finally {
      this.flushing = false;
    }
  }
}
