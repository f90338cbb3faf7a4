// Bytes of files received by this process, kept briefly for a worker of the same process (the
// default deployment runs every role in one process): it then need not read them back from the
// database. A bounded optimisation only: the database holds every staged file, and a worker that
// misses here (another process, evicted, restarted) reads them from there.
export class StagedBytesCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  put(intakeId: string, content: Buffer): void {
    if (content.length > this.maxBytes) return;
    this.entries.set(intakeId, content);
    this.bytes += content.length;
    // oldest first: a Map iterates in insertion order
    for (const [id, b] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(id);
      this.bytes -= b.length;
    }
  }

  /** The bytes, if this process still has them; they leave the cache. */
  take(intakeId: string): Buffer | undefined {
    const b = this.entries.get(intakeId);
    if (b) {
      this.entries.delete(intakeId);
      this.bytes -= b.length;
    }
    return b;
  }

  get size(): { files: number; bytes: number } {
    return { files: this.entries.size, bytes: this.bytes };
  }
}
