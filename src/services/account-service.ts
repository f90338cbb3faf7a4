import type { Database, Queryable } from '../db/database.ts';
import { whenCommitted } from '../db/units.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { generateKey, hashKey, keyHint, keyMode } from '../domain/api-keys.ts';
import { DomainError } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import type { AccountView } from '../domain/models.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import type { KeyScope } from '../domain/upload-keys.ts';
import type { AccountRow } from '../repositories/account-repository.ts';
import type { AnnouncedMemo } from './announced-memo.ts';
import type { KeyCache, KeyRevocations } from './key-cache.ts';
import type { KeyChannel } from '../domain/channels.ts';

export class AccountService {
  private readonly usesWritten = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'accounts'>,
    private readonly importAddress: string,
    /** the key cache and how revocations reach every node; `disabled`: each node's memory of which accounts are disabled */
    private readonly keys: {
      cache?: KeyCache<KeyScope>;
      revocations?: KeyRevocations;
      disabled?: AnnouncedMemo<boolean>;
      uploadKeyHashes?: (accountId: string, tx: Queryable) => Promise<string[]>;
    } = {},
  ) {}

  /** Whether the account is disabled (every received file asks: remembered per node, told of changes). */
  isDisabled(id: string): Promise<boolean> {
    const read = () => this.repos.accounts.isDisabled(this.db, id);
    return this.keys.disabled ? this.keys.disabled.get(id, read) : read();
  }

  async create(name: string): Promise<AccountView & { liveKey: string; testKey: string }> {
    const trimmed = name?.trim();
    if (!trimmed || trimmed.length > 250) throw DomainError.invalid('Field name must be 1 to 250 characters', 'name');
    const liveKey = generateKey('live');
    const testKey = generateKey('test');
    const row = await this.db.transaction(async (tx) => {
      const row = await this.repos.accounts.insert(tx, {
        id: newId('acc'),
        name: trimmed,
        ftp_username: `ii${randomToken(10).toLowerCase()}`,
        import_token_live: randomToken(12).toLowerCase(),
        import_token_test: `t${randomToken(12).toLowerCase()}`,
      });
      await this.repos.accounts.replaceKey(tx, { accountId: row.id, mode: 'live' }, hashKey(liveKey), keyHint(liveKey));
      await this.repos.accounts.replaceKey(tx, { accountId: row.id, mode: 'test' }, hashKey(testKey), keyHint(testKey));
      return row;
    });
    return { ...this.view(row), liveKey, testKey };
  }

  async get(id: string): Promise<AccountView> {
    return this.view(DomainError.unlessFound(await this.repos.accounts.find(this.db, id), 'account', id));
  }

  /** Refuses (not_found) an account that does not exist: what a user or a key is added to. */
  async require(id: string): Promise<void> {
    if (!(await this.repos.accounts.find(this.db, id))) throw DomainError.notFound('account', id);
  }

  keyHints(id: string): Promise<Partial<Record<Mode, string>>> {
    return this.repos.accounts.keyHints(this.db, id);
  }

  /** Accounts for operators, newest first; `search` matches the name (part), the id or the FTP user. */
  async list(req: PageRequest, search?: string): Promise<Page<AccountView>> {
    const page = await this.repos.accounts.page(this.db, req, search?.trim() || undefined);
    return { ...page, items: page.items.map((r) => this.view(r)) };
  }

  /**
   * Switches an account off or on. Off, its keys fail on every node within a second (as after a
   * rotation), FTP/SFTP logins are refused and files sent to its import addresses are recorded as failed.
   */
  async setDisabled(id: string, disabled: boolean): Promise<AccountView> {
    return this.keys.disabled ? this.keys.disabled.changing(id, () => this.switchDisabled(id, disabled)) : this.switchDisabled(id, disabled);
  }

  private async switchDisabled(id: string, disabled: boolean): Promise<AccountView> {
    let revoked: string[] = [];
    const row = await this.db.transaction(async (tx) => {
      const row = await this.repos.accounts.setDisabled(tx, id, disabled);
      if (!row) throw DomainError.notFound('account', id);
      // the upload keys too: the nodes' caches must forget them as well
      if (disabled)
        revoked = [
          ...(await this.repos.accounts.lockActiveKeys(tx, { accountId: id, mode: 'live' })),
          ...(await this.repos.accounts.lockActiveKeys(tx, { accountId: id, mode: 'test' })),
          ...((await this.keys.uploadKeyHashes?.(id, tx)) ?? []),
        ];
      await this.announceRevoked(revoked);
      return row;
    });
    await whenCommitted(() => this.afterRevocation(revoked));
    return this.view(row);
  }

  /** A new key for the mode; the old one stops working on every node within a second. */
  async rotateKey(id: string, mode: Mode): Promise<string> {
    const key = generateKey(mode);
    let old: string[] = [];
    await this.db.transaction(async (tx) => {
      if (!(await this.repos.accounts.find(tx, id))) throw DomainError.notFound('account', id);
      old = await this.repos.accounts.lockActiveKeys(tx, { accountId: id, mode });
      await this.announceRevoked(old);
      await this.repos.accounts.replaceKey(tx, { accountId: id, mode }, hashKey(key), keyHint(key));
    });
    await whenCommitted(() => this.afterRevocation(old));
    return key;
  }

  // Announced before the commit, so that when Redis cannot tell the other nodes nothing changes;
  // and after it, for a node that looked the old key up in between. (When that second one fails,
  // Redis went away, and every node stops trusting its cache within a second anyway.)
  private announceRevoked(hashes: string[]): Promise<void> {
    const { cache, revocations } = this.keys;
    return cache && cache.ttlMs > 0 && revocations && hashes.length ? revocations.announceRevoked(hashes) : Promise.resolve();
  }

  private async afterRevocation(hashes: string[]): Promise<void> {
    for (const hash of hashes) this.keys.cache?.forget(hash);
    await this.announceRevoked(hashes).catch(() => {});
  }

  /**
   * The scope the node's cache holds for a key's hash, without a promise (the API's every request);
   * undefined when it must be looked up (authenticate). Only for a hash of a well-formed key, and only
   * while the caller trusts the cache (revocations reach it): a revoked key was forgotten here.
   */
  cachedScope(hash: string): KeyScope | undefined {
    return this.keys.cache?.get(hash);
  }

  /** The scope a presented key opens, or undefined; a disabled account's key throws 'unauthorized'. `cached`: the node's cache may answer. */
  async authenticate(key: string, cached = false, hash = hashKey(key)): Promise<Scope | undefined> {
    if (!keyMode(key)) return undefined;
    const cache = cached ? this.keys.cache : undefined;
    const hit = cache?.get(hash);
    if (hit) return hit;
    const since = cache?.generation;
    const owner = await this.repos.accounts.findKey(this.db, hash);
    if (!owner) return undefined;
    if (owner.disabled) throw DomainError.unauthorized('This account is disabled; its operator can enable it again');
    const scope: Scope = { accountId: owner.accountId, mode: owner.mode };
    cache?.set(hash, scope, since);
    return scope;
  }

  /** FTP login: the account's generated user name with its live or test key as password. */
  async authenticateFtp(username: string, password: string): Promise<Scope | undefined> {
    const account = await this.repos.accounts.findByFtpUsername(this.db, username);
    if (!account || account.disabled_at) return undefined;
    const scope = await this.authenticate(password).catch(() => undefined);
    return scope && scope.accountId === account.id ? scope : undefined;
  }

  /** Notes that the scope's API key was used over `channel` from `address` (at most once a minute per node and row). */
  noteKeyUse(scope: Scope, channel: KeyChannel, address: string | null): void {
    const k = `${scope.accountId} ${scope.mode} ${channel} ${address}`;
    const now = Date.now();
    if (!address || (this.usesWritten.get(k) ?? 0) > now - 60_000) return;
    if (this.usesWritten.size > 10_000) this.usesWritten.clear();
    this.usesWritten.set(k, now);
    this.repos.accounts.noteKeyUse(this.db, scope, channel, address).catch(() => this.usesWritten.delete(k));
  }

  /** Which integrations used the scope's API key in the last 30 days: channel, address, when. */
  async keyUses(scope: Scope): Promise<{ channel: string; address: string; at: string }[]> {
    const rows = await this.repos.accounts.keyUses(this.db, scope, new Date(Date.now() - 30 * 86_400_000));
    return rows.map((r) => ({ channel: r.channel, address: r.address, at: r.last_used_at.toISOString() }));
  }

  /** The id of the enabled account with this FTP user name (an upload key's login). */
  async ftpAccountId(username: string): Promise<string | undefined> {
    const account = await this.repos.accounts.findByFtpUsername(this.db, username);
    return account && !account.disabled_at ? account.id : undefined;
  }

  /** A stamp of the scope's active API key that changes when it is rotated, none while the account is disabled (SFTP sessions end then). */
  keyStamp(scope: Scope): Promise<string | undefined> {
    return this.repos.accounts.activeKeyHash(this.db, scope);
  }

  /** The account and mode an import address (local+token@domain) belongs to. */
  async findByImportAddress(address: string): Promise<Scope | undefined> {
    const [local, domain] = address.trim().toLowerCase().split('@');
    const [baseLocal, baseDomain] = this.importAddress.toLowerCase().split('@');
    const m = /^([^+]+)\+([a-z0-9]+)$/.exec(local ?? '');
    if (!m || m[1] !== baseLocal || domain !== baseDomain) return undefined;
    return this.repos.accounts.findByImportToken(this.db, m[2]);
  }

  private view(row: AccountRow): AccountView {
    const [local, domain] = this.importAddress.split('@');
    return {
      id: row.id,
      name: row.name,
      ftpUsername: row.ftp_username,
      importAddresses: { live: `${local}+${row.import_token_live}@${domain}`, test: `${local}+${row.import_token_test}@${domain}` },
      createdAt: row.created_at.toISOString(),
      disabled: row.disabled_at !== null,
    };
  }
}
