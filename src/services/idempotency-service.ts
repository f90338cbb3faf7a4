import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Scope } from '../domain/scope.ts';
import { idempotencyRepository as keys } from '../repositories/idempotency-repository.ts';

export type IdempotencyDecision = { kind: 'proceed' } | { kind: 'replay'; status: number; body: string };

/**
 * Idempotency-Key on POST: the first request runs, a replay gets the stored response. A claim
 * holds for a lease that its request renews while it runs (hold()); when the process dies
 * mid-request the lease lapses and a retry runs the request again.
 */
export class IdempotencyService {
  constructor(
    private readonly db: Database,
    private readonly ttlHours: number,
    readonly leaseMs = 30_000,
  ) {}

  /** `parts`: body parts kept apart from `body` (a document's content, as bytes), in order */
  static fingerprint(method: string, path: string, body: unknown, parts: Uint8Array[] = []): string {
    const hash = createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`);
    for (const p of parts) hash.update(`\n${p.length}\n`).update(p);
    return hash.digest('hex');
  }

  async begin(scope: Scope, key: string, fingerprint: string): Promise<IdempotencyDecision> {
    if (key.length === 0 || key.length > 255) throw DomainError.invalid('Header Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
    if (await keys.claim(this.db, scope, key, fingerprint, this.ttlHours, this.leaseMs)) return { kind: 'proceed' };
    const rec = await keys.find(this.db, scope, key);
    if (!rec) return this.begin(scope, key, fingerprint); // expired and purged in between
    if (rec.request_hash !== fingerprint) {
      throw DomainError.unprocessable('This Idempotency-Key was used with a different request', 'Idempotency-Key');
    }
    if (rec.status_code == null) {
      const s = Math.max(1, Math.ceil(((rec.lease_until?.getTime() ?? 0) - Date.now()) / 1000));
      throw DomainError.conflict(`A request with this Idempotency-Key is still in progress; retry in ${s} s`, 'Idempotency-Key');
    }
    return { kind: 'replay', status: rec.status_code, body: rec.response_body ?? '' };
  }

  /** Renews the claim every third of the lease until the returned function is called. */
  hold(scope: Scope, key: string, onError: (err: unknown) => void): () => void {
    const timer = setInterval(() => keys.renew(this.db, scope, key, this.leaseMs).catch(onError), Math.max(100, Math.floor(this.leaseMs / 3)));
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Stores the response; a server error releases the key so the client can retry. */
  async finish(scope: Scope, key: string, status: number, body: string): Promise<void> {
    if (status >= 500) await keys.release(this.db, scope, key);
    else await keys.complete(this.db, scope, key, status, body);
  }

  purgeExpired(): Promise<number> {
    return keys.purgeOlderThan(this.db, this.ttlHours);
  }
}
