import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { ApiError } from '../domain/errors.ts';
import type { Scope } from '../domain/scope.ts';
import { idempotencyRepository as keys } from '../repositories/idempotency-repository.ts';

export type IdempotencyDecision = { kind: 'proceed' } | { kind: 'replay'; status: number; body: string };

/** Idempotency-Key on POST: the first request runs, a replay gets the stored response. */
export class IdempotencyService {
  constructor(
    private readonly db: Database,
    private readonly ttlHours: number,
  ) {}

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
  }

  async begin(scope: Scope, key: string, fingerprint: string): Promise<IdempotencyDecision> {
    if (key.length === 0 || key.length > 255) throw ApiError.badRequest('Header Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
    if (await keys.claim(this.db, scope, key, fingerprint, this.ttlHours)) return { kind: 'proceed' };
    const rec = await keys.find(this.db, scope, key);
    if (!rec) return this.begin(scope, key, fingerprint); // expired and purged in between
    if (rec.request_hash !== fingerprint) {
      throw ApiError.unprocessable('This Idempotency-Key was used with a different request', 'Idempotency-Key');
    }
    if (rec.status_code == null) throw ApiError.conflict('A request with this Idempotency-Key is still in progress', 'Idempotency-Key');
    return { kind: 'replay', status: rec.status_code, body: rec.response_body ?? '' };
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
