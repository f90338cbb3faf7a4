import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { Unit, UnitDatabase } from '../db/units.ts';
import { DomainError } from '../domain/errors.ts';
import type { Scope } from '../domain/scope.ts';

/** Where a test makes a keyed request stop for good, so that it can kill the process there. */
export type IdempotencyPausePoint = 'before-claim' | 'after-claim' | 'after-effect' | 'after-commit';
export const IDEMPOTENCY_PAUSE_POINTS: IdempotencyPausePoint[] = ['before-claim', 'after-claim', 'after-effect', 'after-commit'];

/** A claimed key: the request runs inside it; finish() stores the response and commits. */
export interface IdempotencyClaim {
  /** runs the request's work (and all it starts) in the claim's transaction */
  run<T>(fn: () => T): T;
  /** stores the response with the effects and commits them together; a 5xx rolls everything back */
  finish(status: number, body: string): Promise<void>;
}

export type IdempotencyDecision = { kind: 'proceed'; claim: IdempotencyClaim } | { kind: 'replay'; status: number; body: string };

const SERIALIZATION = /^(55P03|40001|40P01)$/;

/**
 * Idempotency-Key on POST, as one transaction with its effects (a unit of work, db/units.ts): the
 * claim, what the request changes (an invoice, a staged file, ...) and the stored response commit
 * together, or none of them does. A retry after a crash finds the stored response (replayed) or
 * nothing (the request runs on a clean slate); a request while another with the same key runs
 * waits for it up to `waitMs`, then gets 409. Work outside the database (queueing a job) runs
 * after the commit; when the process dies in between, the reconcilers catch up.
 */
export class IdempotencyService {
  constructor(
    private readonly db: Database & Partial<Pick<UnitDatabase, 'begin'>>,
    private readonly repos: Pick<Repositories, 'idempotencyKeys'>,
    private readonly ttlHours: number,
    private readonly opts: { waitMs: number; pauseAt?: IdempotencyPausePoint; onPause?: (point: IdempotencyPausePoint) => void } = { waitMs: 5000 },
  ) {}

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256')
      .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
      .digest('hex');
  }

  async begin(scope: Scope, key: string, fingerprint: string): Promise<IdempotencyDecision> {
    if (key.length === 0 || key.length > 255) throw DomainError.invalid('Header Idempotency-Key must be 1 to 255 characters', 'Idempotency-Key');
    if (!this.db.begin) throw new Error('idempotency needs a database with units of work (withUnits)');
    await this.pause('before-claim');
    const unit = await this.db.begin();
    let claimed: boolean;
    try {
      claimed = await this.repos.idempotencyKeys.claim(unit, scope, key, fingerprint, this.ttlHours, this.opts.waitMs);
    } catch (e) {
      await unit.rollback().catch(() => {});
      if (SERIALIZATION.test((e as { code?: string }).code ?? '')) throw this.inProgress();
      throw e;
    }
    if (claimed) {
      await this.pause('after-claim');
      return { kind: 'proceed', claim: this.claim(unit, scope, key) };
    }
    await unit.rollback();
    const rec = await this.repos.idempotencyKeys.find(this.db, scope, key);
    if (!rec) return this.begin(scope, key, fingerprint); // expired and purged in between
    if (rec.request_hash !== fingerprint) {
      throw DomainError.unprocessable('This Idempotency-Key was used with a different request', 'Idempotency-Key');
    }
    if (rec.status_code == null) throw this.inProgress();
    return { kind: 'replay', status: rec.status_code, body: rec.response_body ?? '' };
  }

  private claim(unit: Unit, scope: Scope, key: string): IdempotencyClaim {
    return {
      run: (fn) => unit.run(fn),
      finish: async (status, body) => {
        if (status >= 500) return unit.rollback(); // a server error leaves no trace: the client retries
        await this.pause('after-effect');
        try {
          await this.repos.idempotencyKeys.complete(unit, scope, key, status, body);
          await unit.commit();
        } catch (e) {
          await unit.rollback().catch(() => {});
          throw e;
        }
        await this.pause('after-commit');
      },
    };
  }

  private inProgress() {
    return DomainError.conflict(
      `A request with this Idempotency-Key is still in progress; retry in ${Math.max(1, Math.ceil(this.opts.waitMs / 1000))} s`,
      'Idempotency-Key',
    );
  }

  /** A test's fault injection (IDEMPOTENCY_PAUSE_AT): says so, then never goes on. */
  private async pause(point: IdempotencyPausePoint): Promise<void> {
    if (this.opts.pauseAt !== point) return;
    this.opts.onPause?.(point);
    await new Promise(() => {});
  }

  purgeExpired(): Promise<number> {
    return this.repos.idempotencyKeys.purgeOlderThan(this.db, this.ttlHours);
  }
}
