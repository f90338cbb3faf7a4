// SSH public keys an account registers per mode for SFTP logins (admin API and CLI), and the
// lookups the SFTP channel makes at login and while a session runs.
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { sshFingerprint } from '../domain/ssh-public-keys.ts';
import type { SshKeyRow } from '../repositories/ssh-key-repository.ts';
import type { AccountService } from './account-service.ts';
import { parseSshPublicKey } from './ssh-key-parser.ts';

export interface SshKeyView {
  id: string;
  mode: Mode;
  type: string;
  fingerprint: string;
  comment: string;
  createdAt: string;
}

const view = (r: SshKeyRow): SshKeyView => ({ id: r.id, mode: r.mode, type: r.key_type, fingerprint: r.fingerprint, comment: r.comment, createdAt: r.created_at.toISOString() });

export class SshKeyService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'sshKeys'>,
    /** a key is registered for an account that exists */
    private readonly accounts: Pick<AccountService, 'require'>,
  ) {}

  /** Registers a public key for one mode of the account; a key opens one mode only. */
  async add(accountId: string, mode: Mode, publicKey: string, comment?: string): Promise<SshKeyView> {
    const key = await parseSshPublicKey(publicKey);
    if ('error' in key) throw DomainError.invalid(key.error, 'publicKey');
    await this.accounts.require(accountId);
    const row = await this.repos.sshKeys.insert(this.db, {
      id: newId('ssk'),
      account_id: accountId,
      mode,
      key_type: key.type,
      public_key: key.blob.toString('base64'),
      fingerprint: key.fingerprint,
      comment: (comment ?? key.comment).trim().slice(0, 200),
    });
    if (row) return view(row);
    const existing = await this.repos.sshKeys.findByFingerprint(this.db, accountId, key.fingerprint);
    throw DomainError.conflict(`This key (${key.fingerprint}) is already registered for ${existing?.mode ?? 'this'} mode as ${existing?.id ?? 'another key'}`, 'publicKey');
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
  findForLogin(ftpUsername: string, blob: Buffer): Promise<{ scope: Scope; keyId: string } | undefined> {
    return this.repos.sshKeys.findForLogin(this.db, ftpUsername, sshFingerprint(blob));
  }

  /** Whether the key still exists (removed keys end their sessions). */
  stillRegistered(keyId: string): Promise<boolean> {
    return this.repos.sshKeys.exists(this.db, keyId);
  }
}
