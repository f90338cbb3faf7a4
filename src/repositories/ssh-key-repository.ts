import type { Queryable } from '../db/database.ts';
import type { Mode, Scope } from '../domain/scope.ts';

export interface SshKeyRow {
  id: string;
  account_id: string;
  mode: Mode;
  key_type: string;
  public_key: string;
  fingerprint: string;
  comment: string;
  created_at: Date;
}

export class SshKeyRepository {
  async insert(q: Queryable, k: Omit<SshKeyRow, 'created_at'>): Promise<SshKeyRow | undefined> {
    const rows = await q.query<SshKeyRow>(
      `insert into ssh_keys (id, account_id, mode, key_type, public_key, fingerprint, comment) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (account_id, fingerprint) do nothing returning *`,
      [k.id, k.account_id, k.mode, k.key_type, k.public_key, k.fingerprint, k.comment],
    );
    return rows[0];
  }

  async findByFingerprint(q: Queryable, accountId: string, fingerprint: string): Promise<SshKeyRow | undefined> {
    return (await q.query<SshKeyRow>('select * from ssh_keys where account_id = $1 and fingerprint = $2', [accountId, fingerprint]))[0];
  }

  async list(q: Queryable, accountId: string): Promise<SshKeyRow[]> {
    return q.query<SshKeyRow>('select * from ssh_keys where account_id = $1 order by created_at desc, id', [accountId]);
  }

  async remove(q: Queryable, accountId: string, id: string): Promise<boolean> {
    return (await q.query<{ id: string }>('delete from ssh_keys where account_id = $1 and id = $2 returning id', [accountId, id])).length > 0;
  }

  /** The account (by FTP user name) and mode this key blob logs into, and the key's id; none for a disabled account. */
  async findForLogin(q: Queryable, ftpUsername: string, fingerprint: string): Promise<{ scope: Scope; keyId: string } | undefined> {
    const rows = await q.query<{ id: string; account_id: string; mode: Mode }>(
      'select k.id, k.account_id, k.mode from ssh_keys k join accounts a on a.id = k.account_id where a.ftp_username = $1 and k.fingerprint = $2 and a.disabled_at is null',
      [ftpUsername, fingerprint],
    );
    return rows[0] && { scope: { accountId: rows[0].account_id, mode: rows[0].mode }, keyId: rows[0].id };
  }

  async exists(q: Queryable, id: string): Promise<boolean> {
    return (await q.query('select 1 from ssh_keys where id = $1', [id])).length > 0;
  }
}
