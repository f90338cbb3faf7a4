import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';

export interface IdempotencyRecord {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  created_at: Date;
  lease_until: Date | null;
}

export const idempotencyRepository = {
  /**
   * Claims the key for this request for `leaseMs`; false when another live claim or a stored
   * response holds it. Expired records are dropped first; a claim of the same request whose lease
   * lapsed (its process died) is taken over.
   */
  async claim(q: Queryable, scope: Scope, key: string, requestHash: string, ttlHours: number, leaseMs: number): Promise<boolean> {
    await q.query(
      `delete from idempotency_keys where account_id = $1 and mode = $2 and key = $3 and created_at < now() - make_interval(hours => $4::int)`,
      [scope.accountId, scope.mode, key, ttlHours],
    );
    const rows = await q.query(
      `insert into idempotency_keys as k (account_id, mode, key, request_hash, lease_until)
       values ($1, $2, $3, $4, now() + make_interval(secs => $5::int / 1000.0))
       on conflict (account_id, mode, key) do update set lease_until = excluded.lease_until, created_at = now()
         where k.status_code is null and k.request_hash = excluded.request_hash and coalesce(k.lease_until, '-infinity') < now()
       returning key`,
      [scope.accountId, scope.mode, key, requestHash, leaseMs],
    );
    return rows.length === 1;
  },

  /** Extends a running request's claim. */
  async renew(q: Queryable, scope: Scope, key: string, leaseMs: number): Promise<void> {
    await q.query(
      'update idempotency_keys set lease_until = now() + make_interval(secs => $4::int / 1000.0) where account_id = $1 and mode = $2 and key = $3 and status_code is null',
      [scope.accountId, scope.mode, key, leaseMs],
    );
  },

  async find(q: Queryable, scope: Scope, key: string): Promise<IdempotencyRecord | undefined> {
    return (await q.query<IdempotencyRecord>('select request_hash, status_code, response_body, created_at, lease_until from idempotency_keys where account_id = $1 and mode = $2 and key = $3', [scope.accountId, scope.mode, key]))[0];
  },

  async complete(q: Queryable, scope: Scope, key: string, status: number, body: string): Promise<void> {
    await q.query('update idempotency_keys set status_code = $4, response_body = $5 where account_id = $1 and mode = $2 and key = $3', [scope.accountId, scope.mode, key, status, body]);
  },

  async release(q: Queryable, scope: Scope, key: string): Promise<void> {
    await q.query('delete from idempotency_keys where account_id = $1 and mode = $2 and key = $3', [scope.accountId, scope.mode, key]);
  },

  async purgeOlderThan(q: Queryable, hours: number): Promise<number> {
    const rows = await q.query(`delete from idempotency_keys where created_at < now() - make_interval(hours => $1::int) returning key`, [hours]);
    return rows.length;
  },
};
