// Which scope an API key hash opens, remembered for a short while so that most requests do not
// pay a database round trip for their key. Only known keys are cached (a new key works at once).
// Whether a cached entry may be used is the caller's call: the API uses it only after Redis has
// confirmed, in the same round trip as the rate limit, that the key carries no revocation
// marker (see KeyRevocations), so a rotated key fails at once on every node.
import type { Scope } from '../domain/scope.ts';

/** Where rotations leave a marker every node checks before trusting its cache. */
export interface KeyRevocations {
  /** marks the hashes as revoked for at least `ttlMs` */
  markRevoked(hashes: string[], ttlMs: number): Promise<void>;
}

export class KeyCache {
  private readonly entries = new Map<string, { scope: Scope; expires: number }>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): Scope | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (e.expires > Date.now()) return e.scope;
    this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, scope: Scope): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { scope, expires: Date.now() + this.ttlMs });
  }

  forget(hash: string): void {
    this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}
