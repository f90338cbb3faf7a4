// Bytes of files received by this process, kept briefly for a worker of the same process (the
// default deployment runs every role in one process): it then need not read them back from the
// store. A bounded optimisation only: the store holds every staged file, and a worker that
// misses here (another process, refused, expired, restarted) reads them from there.
//
// When it is full it keeps what it has and refuses the newcomer: workers take the oldest job
// first, so the oldest entries are the next to be taken. Dropping the oldest instead (as it did)
// meant that under a backlog larger than the cache every entry was evicted before its job ran,
// and the cache held its whole budget of memory that nothing used. An entry not taken within
// `maxAgeMs` (its job ran in another process, or waits far back in a backlog) is dropped, so the
// budget goes to files whose jobs run soon.

/** Each cache's budget: about 300 files of 100 KB, a few seconds of a worker's lag at full rate. */
export const HAND_OFF_BYTES = 32 * 1024 * 1024;
/** An entry older than this is not worth its memory: its job will read the store. */
const HAND_OFF_MAX_AGE_MS = 30_000;

export class StagedBytesCache {
  /** insertion order is age order */
  private readonly entries = new Map<string, { bytes: Buffer; at: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxAgeMs = HAND_OFF_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps the bytes unless they do not fit once the expired entries are gone. */
  put(intakeId: string, content: Buffer): void {
    if (this.bytes + content.length > this.maxBytes) this.dropExpired();
    if (this.bytes + content.length > this.maxBytes || this.entries.has(intakeId)) return;
    this.entries.set(intakeId, { bytes: content, at: this.now() });
    this.bytes += content.length;
  }

  /** The bytes, if this process still has them; they leave the cache. */
  take(intakeId: string): Buffer | undefined {
    const e = this.entries.get(intakeId);
    if (!e) return undefined;
    this.entries.delete(intakeId);
    this.bytes -= e.bytes.length;
    return e.bytes;
  }

  get size(): { files: number; bytes: number } {
    return { files: this.entries.size, bytes: this.bytes };
  }

  private dropExpired(): void {
    const cutoff = this.now() - this.maxAgeMs;
    for (const [id, e] of this.entries) {
      if (e.at >= cutoff) break;
      this.entries.delete(id);
      this.bytes -= e.bytes.length;
    }
  }
}
