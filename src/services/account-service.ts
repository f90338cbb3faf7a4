import type { Database } from '../db/database.ts';
import { generateKey, hashKey, keyHint, keyMode } from '../domain/api-keys.ts';
import { ApiError } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { accountRepository as accounts, type AccountRow } from '../repositories/account-repository.ts';

export interface AccountView {
  id: string;
  name: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
  createdAt: string;
}

export interface KeyEvents {
  /** called after a key of this scope was replaced, so caches everywhere can forget it */
  keyRotated(scope: Scope): void;
}

export class AccountService {
  constructor(
    private readonly db: Database,
    private readonly importAddress: string,
    private readonly events: KeyEvents = { keyRotated() {} },
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
    await this.db.transaction(async (tx) => {
      if (!(await accounts.find(tx, id))) throw ApiError.notFound('account', id);
      await accounts.replaceKey(tx, { accountId: id, mode }, hashKey(key), keyHint(key));
    });
    this.events.keyRotated({ accountId: id, mode });
    return key;
  }

  /** The scope a presented key opens, or undefined. */
  async authenticate(key: string): Promise<Scope | undefined> {
    if (!keyMode(key)) return undefined;
    return accounts.findKey(this.db, hashKey(key));
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
