// Which scope an API key hash opens, remembered for a short while so that most requests do not
// pay a database round trip for their key. Only known keys are cached (a new key works at once).
// Whether the cache may be used is the caller's call (the API asks the announcements, which hear
// revocations); a lookup that overlapped a revocation stores nothing (see `generation`). The same
// store keeps what AnnouncedMemo remembers (announced-memo.ts).
import type { Scope } from '../domain/scope.ts';

/** Tells every node that these key hashes no longer open anything. */
export interface KeyRevocations {
  announceRevoked(hashes: string[]): Promise<void>;
}

export class KeyCache<V = Scope> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** changes on every forget/clear: set() ignores a lookup that began before one */
  generation = 0;

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): V | undefined {
    const e = this.entries.get(hash);
    if (e && e.expires > Date.now()) return e.value;
    if (e) this.entries.delete(hash);
  }

  /** `since`: the generation read before the lookup that found `value` */
  set(hash: string, value: V, since = this.generation): void {
    if (this.ttlMs <= 0 || since !== this.generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, expires: Date.now() + this.ttlMs });
  }

  forget(hash: string): void {
    this.generation++;
    this.entries.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
