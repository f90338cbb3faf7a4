// The V8 heaps of the PDF check threads, for /metrics: each thread is an isolate of its own, so
// its heap is in neither the process's nodejs_heap_* series nor its external memory, yet it is
// part of the resident set (up to maxHeapMb a thread). Each thread takes a slot in memory shared
// with the pool when it starts and notes its heap there after every task (pdf-check-thread.mjs);
// the pool frees the slot when piscina destroys the thread.

/** slots for twice the threads: a thread being replaced and its successor may overlap */
const PER_THREAD = 2;

export interface ThreadHeapTotals {
  /** threads that noted their heap */
  threads: number;
  /** V8's used_heap_size, summed */
  usedBytes: number;
  /** V8's total_heap_size (what the threads' heaps hold of the resident set), summed */
  totalBytes: number;
}

export class ThreadHeaps {
  /** per slot: the owner's threadId (Int32, 0: free), then its used and total heap bytes (Float64) */
  readonly shared: { owners: SharedArrayBuffer; bytes: SharedArrayBuffer };
  private readonly owners: Int32Array;
  private readonly bytes: Float64Array;

  constructor(threads: number) {
    const slots = Math.max(1, threads) * PER_THREAD;
    this.shared = { owners: new SharedArrayBuffer(slots * 4), bytes: new SharedArrayBuffer(slots * 2 * 8) };
    this.owners = new Int32Array(this.shared.owners);
    this.bytes = new Float64Array(this.shared.bytes);
  }

  /** The thread `threadId` is gone: its slot is free and its heap no longer counts. */
  release(threadId: number): void {
    for (let i = 0; i < this.owners.length; i++) {
      if (Atomics.load(this.owners, i) !== threadId) continue;
      this.bytes[2 * i] = 0;
      this.bytes[2 * i + 1] = 0;
      Atomics.store(this.owners, i, 0);
    }
  }

  totals(): ThreadHeapTotals {
    const t: ThreadHeapTotals = { threads: 0, usedBytes: 0, totalBytes: 0 };
    for (let i = 0; i < this.owners.length; i++) {
      if (!Atomics.load(this.owners, i)) continue;
      t.threads++;
      t.usedBytes += this.bytes[2 * i];
      t.totalBytes += this.bytes[2 * i + 1];
    }
    return t;
  }
}
