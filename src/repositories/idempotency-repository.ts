import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';

export interface IdempotencyRecord {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  created_at: Date;
}

export class IdempotencyRepository {
  /**
   * Claims the key inside the caller's transaction (the request's unit of work); false when a
   * stored response holds it. A concurrent request with the same key holds its uncommitted row:
   * this insert waits for that transaction (at most `waitMs`, then PostgreSQL answers 55P03) and
   * sees its outcome, the stored response or nothing (rolled back or crashed). Expired records go
   * first; a row without a response (left by a version that committed claims alone) is taken over.
   */
  async claim(q: Queryable, scope: Scope, key: string, requestHash: string, ttlHours: number, waitMs: number): Promise<boolean> {
    await q.query(`select set_config('lock_timeout', $1, true)`, [`${waitMs}ms`]);
    await q.query(`delete from idempotency_keys where account_id = $1 and mode = $2 and key = $3 and created_at < now() - make_interval(hours => $4::int)`, [
      scope.accountId,
      scope.mode,
      key,
      ttlHours,
    ]);
    const rows = await q.query(
      `insert into idempotency_keys as k (account_id, mode, key, request_hash, lease_until)
       values ($1, $2, $3, $4, null)
       on conflict (account_id, mode, key) do update set created_at = now()
         where k.status_code is null and k.request_hash = excluded.request_hash
       returning key`,
      [scope.accountId, scope.mode, key, requestHash],
    );
    // the request's own statements may wait on locks as long as they need
    await q.query(`select set_config('lock_timeout', '0', true)`);
    return rows.length === 1;
  }

  async find(q: Queryable, scope: Scope, key: string): Promise<IdempotencyRecord | undefined> {
    return (
      await q.query<IdempotencyRecord>(
        'select request_hash, status_code, response_body, created_at from idempotency_keys where account_id = $1 and mode = $2 and key = $3',
        [scope.accountId, scope.mode, key],
      )
    )[0];
  }

  async complete(q: Queryable, scope: Scope, key: string, status: number, body: string): Promise<void> {
    await q.query('update idempotency_keys set status_code = $4, response_body = $5 where account_id = $1 and mode = $2 and key = $3', [
      scope.accountId,
      scope.mode,
      key,
      status,
      body,
    ]);
  }

  async purgeOlderThan(q: Queryable, hours: number): Promise<number> {
    const rows = await q.query(`delete from idempotency_keys where created_at < now() - make_interval(hours => $1::int) returning key`, [hours]);
    return rows.length;
  }
}
