import type { Queryable } from '../db/database.ts';
import type { Mode, Scope } from '../domain/scope.ts';

export interface UploadKeyRow {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  hash: string;
  hint: string;
  networks: string[];
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  last_used_address: string | null;
  last_used_channel: string | null;
}

/** An active upload key found by its hash, and whether its account is disabled. */
export interface UploadKeyOwner {
  id: string;
  account_id: string;
  mode: Mode;
  name: string;
  networks: string[];
  disabled: boolean;
}

export class UploadKeyRepository {
  async insert(q: Queryable, k: Pick<UploadKeyRow, 'id' | 'account_id' | 'mode' | 'name' | 'hash' | 'hint' | 'networks'>): Promise<UploadKeyRow> {
    const rows = await q.query<UploadKeyRow>(
      'insert into upload_keys (id, account_id, mode, name, hash, hint, networks) values ($1, $2, $3, $4, $5, $6, $7::text[]) returning *',
      [k.id, k.account_id, k.mode, k.name, k.hash, k.hint, k.networks],
    );
    return rows[0];
  }

  /** The scope's active upload keys, oldest first. */
  async list(q: Queryable, scope: Scope): Promise<UploadKeyRow[]> {
    return q.query<UploadKeyRow>('select * from upload_keys where account_id = $1 and mode = $2 and revoked_at is null order by created_at, id', [
      scope.accountId,
      scope.mode,
    ]);
  }

  /** One active key of the scope, or undefined. */
  async getActive(q: Queryable, scope: Scope, id: string): Promise<UploadKeyRow | undefined> {
    return (
      await q.query<UploadKeyRow>('select * from upload_keys where id = $1 and account_id = $2 and mode = $3 and revoked_at is null', [
        id,
        scope.accountId,
        scope.mode,
      ])
    )[0];
  }

  /** Revokes one active key of the scope; its hash, or undefined when there is no such active key. */
  async revoke(q: Queryable, scope: Scope, id: string): Promise<UploadKeyRow | undefined> {
    const rows = await q.query<UploadKeyRow>(
      'update upload_keys set revoked_at = now() where id = $1 and account_id = $2 and mode = $3 and revoked_at is null returning *',
      [id, scope.accountId, scope.mode],
    );
    return rows[0];
  }

  /** The hashes of the account's active upload keys (both modes), for disabling the account. */
  async activeHashes(q: Queryable, accountId: string): Promise<string[]> {
    return (await q.query<{ hash: string }>('select hash from upload_keys where account_id = $1 and revoked_at is null', [accountId])).map((r) => r.hash);
  }

  async findActive(q: Queryable, hash: string): Promise<UploadKeyOwner | undefined> {
    const rows = await q.query<UploadKeyOwner>(
      `select k.id, k.account_id, k.mode, k.name, k.networks, a.disabled_at is not null as disabled
         from upload_keys k join accounts a on a.id = k.account_id where k.hash = $1 and k.revoked_at is null`,
      [hash],
      { prepare: true },
    );
    return rows[0];
  }

  /** Whether the key is still active (SFTP sessions ask while they run). */
  async isActive(q: Queryable, id: string): Promise<boolean> {
    return (
      (
        await q.query('select 1 from upload_keys k join accounts a on a.id = k.account_id where k.id = $1 and k.revoked_at is null and a.disabled_at is null', [
          id,
        ])
      ).length > 0
    );
  }

  async markUsed(q: Queryable, id: string, address: string | null, channel: string): Promise<void> {
    await q.query('update upload_keys set last_used_at = now(), last_used_address = $2, last_used_channel = $3 where id = $1', [id, address, channel]);
  }
}
