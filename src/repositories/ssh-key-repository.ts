import type { Queryable } from '../db/database.ts';
import type { Mode } from '../domain/scope.ts';
import type { KeyScope } from '../domain/upload-keys.ts';

export interface SshKeyRow {
  id: string;
  account_id: string;
  mode: Mode;
  key_type: string;
  public_key: string;
  fingerprint: string;
  comment: string;
  /** the upload key it belongs to (issue 44); null: the account's key of its mode */
  upload_key_id: string | null;
  created_at: Date;
}

export class SshKeyRepository {
  async insert(q: Queryable, k: Omit<SshKeyRow, 'created_at' | 'upload_key_id'> & { upload_key_id?: string | null }): Promise<SshKeyRow | undefined> {
    const rows = await q.query<SshKeyRow>(
      `insert into ssh_keys (id, account_id, mode, key_type, public_key, fingerprint, comment, upload_key_id) values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (account_id, fingerprint) do nothing returning *`,
      [k.id, k.account_id, k.mode, k.key_type, k.public_key, k.fingerprint, k.comment, k.upload_key_id ?? null],
    );
    return rows[0];
  }

  async findByFingerprint(q: Queryable, accountId: string, fingerprint: string): Promise<SshKeyRow | undefined> {
    return (await q.query<SshKeyRow>('select * from ssh_keys where account_id = $1 and fingerprint = $2', [accountId, fingerprint]))[0];
  }

  async list(q: Queryable, accountId: string): Promise<SshKeyRow[]> {
    return q.query<SshKeyRow>('select * from ssh_keys where account_id = $1 order by created_at desc, id', [accountId]);
  }

  /** The SSH keys of one upload key of the account, newest first. */
  async listOfUploadKey(q: Queryable, accountId: string, uploadKeyId: string): Promise<SshKeyRow[]> {
    return q.query<SshKeyRow>('select * from ssh_keys where account_id = $1 and upload_key_id = $2 order by created_at desc, id', [accountId, uploadKeyId]);
  }

  /** Removes one SSH key of an upload key; the row, or undefined when there is none. */
  async removeOfUploadKey(q: Queryable, accountId: string, uploadKeyId: string, id: string): Promise<SshKeyRow | undefined> {
    return (
      await q.query<SshKeyRow>('delete from ssh_keys where account_id = $1 and upload_key_id = $2 and id = $3 returning *', [accountId, uploadKeyId, id])
    )[0];
  }

  async remove(q: Queryable, accountId: string, id: string): Promise<boolean> {
    return (await q.query<{ id: string }>('delete from ssh_keys where account_id = $1 and id = $2 returning id', [accountId, id])).length > 0;
  }

  /**
   * The account (by FTP user name) and mode this key blob logs into, and the key's id; none for a
   * disabled account or a revoked upload key. An upload key's SSH key opens that key's scope.
   */
  async findForLogin(q: Queryable, ftpUsername: string, fingerprint: string): Promise<{ scope: KeyScope; keyId: string } | undefined> {
    const rows = await q.query<{ id: string; account_id: string; mode: Mode; upload_key_id: string | null; name: string | null; networks: string[] | null }>(
      `select k.id, k.account_id, k.mode, k.upload_key_id, u.name, u.networks
         from ssh_keys k join accounts a on a.id = k.account_id left join upload_keys u on u.id = k.upload_key_id
        where a.ftp_username = $1 and k.fingerprint = $2 and a.disabled_at is null and (k.upload_key_id is null or u.revoked_at is null)`,
      [ftpUsername, fingerprint],
    );
    const r = rows[0];
    if (!r) return undefined;
    const uploadKey = r.upload_key_id ? { id: r.upload_key_id, name: r.name ?? '', networks: r.networks ?? [] } : undefined;
    return { scope: { accountId: r.account_id, mode: r.mode, ...(uploadKey && { uploadKey }) }, keyId: r.id };
  }

  /** Whether the key still exists (and its upload key, if it has one, is not revoked). */
  async exists(q: Queryable, id: string): Promise<boolean> {
    return (
      (
        await q.query(
          'select 1 from ssh_keys k left join upload_keys u on u.id = k.upload_key_id where k.id = $1 and (k.upload_key_id is null or u.revoked_at is null)',
          [id],
        )
      ).length > 0
    );
  }
}
