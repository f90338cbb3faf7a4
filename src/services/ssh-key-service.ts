// SSH public keys an account registers per mode for SFTP logins (admin API and CLI), SSH keys of
// upload keys (issue 44: owners, API and dashboard; a login with one acts as that upload key), and
// the lookups the SFTP channel makes at login and while a session runs.
import type { Database, Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { sshFingerprint, type SshPublicKey } from '../domain/ssh-public-keys.ts';
import type { KeyScope } from '../domain/upload-keys.ts';
import type { SshKeyRow } from '../repositories/ssh-key-repository.ts';
import type { AccountService } from './account-service.ts';
import { parseSshPublicKey } from '../formats/ssh-key-parser.ts';
import type { TrailService } from './trail-service.ts';
import type { KeyChangeBy, UploadKeyService } from './upload-key-service.ts';

export interface SshKeyView {
  id: string;
  mode: Mode;
  type: string;
  fingerprint: string;
  comment: string;
  /** the upload key it belongs to (its login acts as that key); null: the account's key of its mode */
  uploadKey: string | null;
  createdAt: string;
}

const view = (r: SshKeyRow): SshKeyView => ({
  id: r.id,
  mode: r.mode,
  type: r.key_type,
  fingerprint: r.fingerprint,
  comment: r.comment,
  uploadKey: r.upload_key_id,
  createdAt: r.created_at.toISOString(),
});

async function parsed(publicKey: string): Promise<SshPublicKey> {
  const key = await parseSshPublicKey(publicKey);
  if ('error' in key) throw DomainError.invalid(key.error, 'publicKey');
  return key;
}

interface SshKeyServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'sshKeys'>;
  /** a key is registered for an account that exists */
  accounts: Pick<AccountService, 'require'>;
  /** records the SSH keys of upload keys added and removed (in the change's transaction) */
  trail?: Pick<TrailService, 'record'>;
  /** the upload key an SSH key is added to is the scope's and active (a key revoked in between logs in nowhere anyway) */
  uploadKeys?: Pick<UploadKeyService, 'get'>;
}

export class SshKeyService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'sshKeys'>;
  private readonly accounts: Pick<AccountService, 'require'>;
  private readonly trail: Pick<TrailService, 'record'> | undefined;
  private readonly uploadKeys: Pick<UploadKeyService, 'get'> | undefined;

  constructor(o: SshKeyServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.accounts = o.accounts;
    this.trail = o.trail;
    this.uploadKeys = o.uploadKeys;
  }

  /** Registers a public key for one mode of the account; a key opens one mode only. */
  async add(accountId: string, mode: Mode, publicKey: string, comment?: string): Promise<SshKeyView> {
    const key = await parsed(publicKey);
    await this.accounts.require(accountId);
    return this.insert(this.db, accountId, mode, key, comment, null);
  }

  /**
   * Registers a public key for one of the scope's active upload keys: an SFTP login with it acts
   * with that key's rights (uploads only, its networks) and stops when the key is revoked.
   */
  async addToUploadKey(scope: Scope, by: KeyChangeBy, uploadKeyId: string, publicKey: unknown, comment?: unknown): Promise<SshKeyView> {
    const key = await parsed(typeof publicKey === 'string' ? publicKey : '');
    return this.db.transaction(async (tx) => {
      const owner = await this.uploadKeyOf(scope, uploadKeyId);
      const added = await this.insert(tx, scope.accountId, scope.mode, key, typeof comment === 'string' ? comment : undefined, owner.id);
      await this.trail?.record(
        {
          scope,
          ...by,
          action: 'upload_key.ssh_key_added',
          target: owner.id,
          detail: { name: owner.name, sshKeyId: added.id, fingerprint: added.fingerprint, type: added.type, comment: added.comment },
        },
        tx,
      );
      return added;
    });
  }

  /** The SSH keys of one of the scope's active upload keys, newest first. */
  async ofUploadKey(scope: Scope, uploadKeyId: string): Promise<SshKeyView[]> {
    await this.uploadKeyOf(scope, uploadKeyId);
    return (await this.repos.sshKeys.listOfUploadKey(this.db, scope.accountId, uploadKeyId)).map(view);
  }

  /** Removes an SSH key of an upload key; sessions it opened end at their next operation. */
  async removeFromUploadKey(scope: Scope, by: KeyChangeBy, uploadKeyId: string, sshKeyId: string): Promise<SshKeyView> {
    return this.db.transaction(async (tx) => {
      const owner = await this.uploadKeyOf(scope, uploadKeyId);
      const row = await this.repos.sshKeys.removeOfUploadKey(tx, scope.accountId, owner.id, sshKeyId);
      if (!row) throw DomainError.notFound('SSH key', sshKeyId);
      await this.trail?.record(
        { scope, ...by, action: 'upload_key.ssh_key_removed', target: owner.id, detail: { name: owner.name, sshKeyId: row.id, fingerprint: row.fingerprint } },
        tx,
      );
      return view(row);
    });
  }

  private async uploadKeyOf(scope: Scope, id: string) {
    if (!this.uploadKeys) throw DomainError.notFound('upload key', id);
    return this.uploadKeys.get(scope, id);
  }

  private async insert(
    q: Queryable,
    accountId: string,
    mode: Mode,
    key: SshPublicKey,
    comment: string | undefined,
    uploadKeyId: string | null,
  ): Promise<SshKeyView> {
    const row = await this.repos.sshKeys.insert(q, {
      id: newId('ssk'),
      account_id: accountId,
      mode,
      key_type: key.type,
      public_key: key.blob.toString('base64'),
      fingerprint: key.fingerprint,
      comment: (comment || key.comment).trim().slice(0, 200),
      upload_key_id: uploadKeyId,
    });
    if (row) return view(row);
    const existing = await this.repos.sshKeys.findByFingerprint(q, accountId, key.fingerprint);
    throw DomainError.conflict(
      `This key (${key.fingerprint}) is already registered for ${existing?.mode ?? 'this'} mode as ${existing?.id ?? 'another key'}`,
      'publicKey',
    );
  }

  async list(accountId: string): Promise<SshKeyView[]> {
    await this.accounts.require(accountId);
    return (await this.repos.sshKeys.list(this.db, accountId)).map(view);
  }

  /** Removes a key; sessions it opened end at their next operation. */
  async remove(accountId: string, keyId: string): Promise<void> {
    if (!(await this.repos.sshKeys.remove(this.db, accountId, keyId))) throw DomainError.notFound('SSH key', keyId);
  }

  /** The scope a public key blob presented for this user opens, and the key's id. */
  findForLogin(ftpUsername: string, blob: Buffer): Promise<{ scope: KeyScope; keyId: string } | undefined> {
    return this.repos.sshKeys.findForLogin(this.db, ftpUsername, sshFingerprint(blob));
  }

  /** Whether the key still exists (removed keys end their sessions). */
  stillRegistered(keyId: string): Promise<boolean> {
    return this.repos.sshKeys.exists(this.db, keyId);
  }
}
