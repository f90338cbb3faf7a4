import type { Database } from '../db/database.ts';
import { generateKey, hashKey, keyHint, keyMode } from '../domain/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { accountRepository as accounts, type AccountRow } from '../repositories/account-repository.ts';
import type { KeyCache, KeyRevocations } from './key-cache.ts';

export interface AccountView {
  id: string;
  name: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
  createdAt: string;
}

/**
 * How authenticate() may use the per-node key cache: `use` when the caller has just confirmed
 * the key carries no revocation marker; `evict` when it carries one; `bypass` otherwise.
 */
export type KeyCacheUse = 'use' | 'evict' | 'bypass';

export interface KeyEvents {
  /** called after a key of this scope was replaced, so caches everywhere can forget it */
  keyRotated(scope: Scope): void;
}

export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly importAddress: string,
    private readonly events: KeyEvents = { keyRotated() {} },
    private readonly keys: { cache?: KeyCache; revocations?: KeyRevocations } = {},
  ) {}

  async create(name: string): Promise<AccountView & { liveKey: string; testKey: string }> {
    const trimmed = name?.trim();
    if (!trimmed || trimmed.length > 250) throw ApiError.badRequest('Field name must be 1 to 250 characters', 'name');
    const liveKey = generateKey('live');
    const testKey = generateKey('test');
    const row = await this.db.transaction(async (tx) => {
      const row = await accounts.insert(tx, {
        id: newId('acc'),
        name: trimmed,
        ftp_username: `ii${randomToken(10).toLowerCase()}`,
        import_token_live: randomToken(12).toLowerCase(),
        import_token_test: `t${randomToken(12).toLowerCase()}`,
      });
      await accounts.replaceKey(tx, { accountId: row.id, mode: 'live' }, hashKey(liveKey), keyHint(liveKey));
      await accounts.replaceKey(tx, { accountId: row.id, mode: 'test' }, hashKey(testKey), keyHint(testKey));
      return row;
    });
    return { ...this.view(row), liveKey, testKey };
  }

  async get(id: string): Promise<AccountView> {
    const row = await accounts.find(this.db, id);
    if (!row) throw ApiError.notFound('account', id);
    return this.view(row);
  }

  /** A new key for the mode; the old one stops working at once. */
  async rotateKey(id: string, mode: Mode): Promise<string> {
    const key = generateKey(mode);
    const { cache, revocations } = this.keys;
    await this.db.transaction(async (tx) => {
      if (!(await accounts.find(tx, id))) throw ApiError.notFound('account', id);
      const old = await accounts.lockActiveKeys(tx, { accountId: id, mode });
      // Marked before the commit: if Redis fails nothing changes; if the commit fails the old
      // key merely goes uncached for a while. Markers outlive any cache entry made before.
      if (cache && cache.ttlMs > 0 && revocations && old.length) await revocations.markRevoked(old, 2 * cache.ttlMs + 1000);
      await accounts.replaceKey(tx, { accountId: id, mode }, hashKey(key), keyHint(key));
      for (const hash of old) cache?.forget(hash);
    });
    this.events.keyRotated({ accountId: id, mode });
    return key;
  }

  /** The scope a presented key opens, or undefined. */
  async authenticate(key: string, cacheUse: KeyCacheUse = 'bypass', hash = hashKey(key)): Promise<Scope | undefined> {
    if (!keyMode(key)) return undefined;
    const { cache } = this.keys;
    if (cacheUse === 'use') {
      const cached = cache?.get(hash);
      if (cached) return cached;
    } else if (cacheUse === 'evict') {
      cache?.forget(hash);
    }
    const scope = await accounts.findKey(this.db, hash);
    if (scope && cacheUse === 'use') cache?.set(hash, scope);
    return scope;
  }

  /** Forgets every cached key, e.g. when revocation markers may have been lost. */
  clearKeyCache(): void {
    this.keys.cache?.clear();
  }

  /** FTP login: the account's generated user name with its live or test key as password. */
  async authenticateFtp(username: string, password: string): Promise<Scope | undefined> {
    const account = await accounts.findByFtpUsername(this.db, username);
    if (!account) return undefined;
    const scope = await this.authenticate(password);
    return scope && scope.accountId === account.id ? scope : undefined;
  }

  /** The account and mode an import address (local+token@domain) belongs to. */
  async findByImportAddress(address: string): Promise<Scope | undefined> {
    const [local, domain] = address.trim().toLowerCase().split('@');
    const [baseLocal, baseDomain] = this.importAddress.toLowerCase().split('@');
    const m = /^([^+]+)\+([a-z0-9]+)$/.exec(local ?? '');
    if (!m || m[1] !== baseLocal || domain !== baseDomain) return undefined;
    return accounts.findByImportToken(this.db, m[2]);
  }

  private view(row: AccountRow): AccountView {
    const [local, domain] = this.importAddress.split('@');
    return {
      id: row.id,
      name: row.name,
      ftpUsername: row.ftp_username,
      importAddresses: { live: `${local}+${row.import_token_live}@${domain}`, test: `${local}+${row.import_token_test}@${domain}` },
      createdAt: row.created_at.toISOString(),
    };
  }
}
