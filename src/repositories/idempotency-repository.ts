import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';

export interface IdempotencyRecord {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  created_at: Date;
}

export const idempotencyRepository = {
  /** Claims the key for this request; false when it is already claimed. Expired claims are dropped first. */
  async claim(q: Queryable, scope: Scope, key: string, requestHash: string, ttlHours: number): Promise<boolean> {
    await q.query(
      `delete from idempotency_keys where account_id = $1 and mode = $2 and key = $3 and created_at < now() - make_interval(hours => $4::int)`,
      [scope.accountId, scope.mode, key, ttlHours],
    );
    const rows = await q.query(
      `insert into idempotency_keys (account_id, mode, key, request_hash) values ($1, $2, $3, $4) on conflict do nothing returning key`,
      [scope.accountId, scope.mode, key, requestHash],
    );
    return rows.length === 1;
  },

  async find(q: Queryable, scope: Scope, key: string): Promise<IdempotencyRecord | undefined> {
    return (await q.query<IdempotencyRecord>('select request_hash, status_code, response_body, created_at from idempotency_keys where account_id = $1 and mode = $2 and key = $3', [scope.accountId, scope.mode, key]))[0];
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
