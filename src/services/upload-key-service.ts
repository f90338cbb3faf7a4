// Upload keys (issue 44): made, listed and revoked by an account's owners (the API key, the
// dashboard), looked up at each use like API keys (the node's key cache, revocations announced
// to every node), and remembered by when and from where they were last used.
import type { Database, Queryable } from '../db/database.ts';
import { whenCommitted } from '../db/units.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { hashKey } from '../domain/api-keys.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Scope } from '../domain/scope.ts';
import {
  generateUploadKey,
  MAX_UPLOAD_KEY_NAME,
  uploadKeyHint,
  uploadKeyMode,
  type KeyScope,
  type UploadKeyRef,
  type UploadKeyView,
} from '../domain/upload-keys.ts';
import type { UploadKeyRow } from '../repositories/upload-key-repository.ts';
import type { TrailActor } from '../domain/trail.ts';
import type { KeyCache, KeyRevocations } from './key-cache.ts';
import type { TrailService } from './trail-service.ts';
import { allowedFrom, normalizeNetworks } from './upload-key-networks.ts';
import type { TransferChannel } from '../domain/channels.ts';

const view = (r: UploadKeyRow): UploadKeyView => ({
  id: r.id,
  mode: r.mode,
  name: r.name,
  hint: r.hint,
  networks: r.networks,
  createdAt: r.created_at.toISOString(),
  lastUsed: r.last_used_at ? { at: r.last_used_at.toISOString(), address: r.last_used_address, channel: r.last_used_channel } : null,
});

/** How often one node writes a key's last use for the same address and channel (not on every request). */
const USE_WRITE_MS = 60_000;

/** Who makes or revokes a key, and from where: the trail's entry. */
export interface KeyChangeBy {
  actor: TrailActor;
  address: string | null;
}

export class UploadKeyService {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'uploadKeys'>,
    private readonly keys: { cache?: KeyCache<KeyScope>; revocations?: KeyRevocations } = {},
    /** records who made and revoked each key (in the change's transaction) */
    private readonly trail?: Pick<TrailService, 'record'>,
  ) {}

  /** A new key for the scope's mode: the key itself is in this answer only. */
  async create(scope: Scope, by: KeyChangeBy, name: unknown, networks?: unknown): Promise<UploadKeyView & { key: string }> {
    const trimmed = typeof name === 'string' ? name.trim() : '';
    if (!trimmed || trimmed.length > MAX_UPLOAD_KEY_NAME) throw DomainError.invalid(`Field name must be 1 to ${MAX_UPLOAD_KEY_NAME} characters`, 'name');
    const nets = normalizeNetworks(networks);
    const key = generateUploadKey(scope.mode);
    const row = await this.db.transaction(async (tx) => {
      const row = await this.repos.uploadKeys.insert(tx, {
        id: newId('upk'),
        account_id: scope.accountId,
        mode: scope.mode,
        name: trimmed,
        hash: hashKey(key),
        hint: uploadKeyHint(key),
        networks: nets,
      });
      await this.trail?.record(
        { scope, ...by, action: 'upload_key.created', target: row.id, detail: { name: row.name, hint: row.hint, networks: row.networks } },
        tx,
      );
      return row;
    });
    return { ...view(row), key };
  }

  /** One active key of the scope (its page); 404 when revoked or not the scope's. */
  async get(scope: Scope, id: string): Promise<UploadKeyView> {
    const row = await this.repos.uploadKeys.getActive(this.db, scope, id);
    if (!row) throw DomainError.notFound('upload key', id);
    return view(row);
  }

  async list(scope: Scope): Promise<UploadKeyView[]> {
    return (await this.repos.uploadKeys.list(this.db, scope)).map(view);
  }

  /** Revokes one key: it stops working on every node within a second (as a rotated API key). */
  async revoke(scope: Scope, by: KeyChangeBy, id: string): Promise<UploadKeyView> {
    const { cache, revocations } = this.keys;
    const announce = (hash: string) => (cache && cache.ttlMs > 0 && revocations ? revocations.announceRevoked([hash]) : Promise.resolve());
    const row = await this.db.transaction(async (tx) => {
      const row = await this.repos.uploadKeys.revoke(tx, scope, id);
      if (!row) throw DomainError.notFound('upload key', id);
      await this.trail?.record({ scope, ...by, action: 'upload_key.revoked', target: row.id, detail: { name: row.name, hint: row.hint } }, tx);
      // before the commit, so that when the other nodes cannot be told, nothing changes
      await announce(row.hash);
      return row;
    });
    await whenCommitted(async () => {
      cache?.forget(row.hash);
      await announce(row.hash).catch(() => {});
    });
    return view(row);
  }

  /** The hashes of an account's active upload keys (announced when the account is disabled), in the caller's transaction `q`. */
  activeHashes(accountId: string, q: Queryable = this.db): Promise<string[]> {
    return this.repos.uploadKeys.activeHashes(q, accountId);
  }

  /** The scope an upload key opens, or undefined; a disabled account's key throws 'unauthorized'. */
  async authenticate(key: string, cached = false, hash = hashKey(key)): Promise<KeyScope | undefined> {
    if (!uploadKeyMode(key)) return undefined;
    const cache = cached ? this.keys.cache : undefined;
    const hit = cache?.get(hash);
    if (hit?.uploadKey) return hit;
    const since = cache?.generation;
    const owner = await this.repos.uploadKeys.findActive(this.db, hash);
    if (!owner) return undefined;
    if (owner.disabled) throw DomainError.unauthorized('This account is disabled; its operator can enable it again');
    const scope: KeyScope = { accountId: owner.account_id, mode: owner.mode, uploadKey: { id: owner.id, name: owner.name, networks: owner.networks } };
    cache?.set(hash, scope, since);
    return scope;
  }

  /**
   * An FTP/FTPS/SFTP login with an upload key as password: the key must be the account's (the
   * FTP user name's), used from its networks. The use is noted (last used).
   */
  async authenticateLogin(accountId: string, key: string, address: string | null, channel: TransferChannel, cached = false): Promise<KeyScope | undefined> {
    const scope = await this.authenticate(key, cached).catch(() => undefined);
    if (!scope?.uploadKey || scope.accountId !== accountId || !this.allows(scope.uploadKey, address)) return undefined;
    this.noteUse(scope.uploadKey, address, channel);
    return scope;
  }

  /** Whether the key may be used from this address (its networks). */
  allows(ref: UploadKeyRef, address: string | null | undefined): boolean {
    return allowedFrom(ref.networks, address);
  }

  /** Whether the key is still active (an SFTP session asks while it runs). */
  stillActive(id: string): Promise<boolean> {
    return this.repos.uploadKeys.isActive(this.db, id);
  }

  /** Records a use (when, from where, which channel): written at most once a minute per node for the same address and channel. */
  noteUse(ref: UploadKeyRef, address: string | null, channel: string): void {
    const k = `${ref.id} ${address} ${channel}`;
    const now = Date.now();
    if ((this.written.get(k) ?? 0) > now - USE_WRITE_MS) return;
    if (this.written.size > 10_000) this.written.clear();
    this.written.set(k, now);
    this.repos.uploadKeys.markUsed(this.db, ref.id, address, channel).catch(() => this.written.delete(k));
  }
}
