import type { Queryable } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode, Scope } from '../domain/scope.ts';

export interface AccountRow {
  id: string;
  name: string;
  ftp_username: string;
  import_token_live: string;
  import_token_test: string;
  created_at: Date;
  disabled_at: Date | null;
}

/** An active key's scope, and whether its account is disabled. */
export interface KeyOwner extends Scope {
  disabled: boolean;
}

export class AccountRepository {
  async insert(q: Queryable, a: Omit<AccountRow, 'created_at' | 'disabled_at'>): Promise<AccountRow> {
    const rows = await q.query<AccountRow>(
      'insert into accounts (id, name, ftp_username, import_token_live, import_token_test) values ($1, $2, $3, $4, $5) returning *',
      [a.id, a.name, a.ftp_username, a.import_token_live, a.import_token_test],
    );
    return rows[0];
  }

  async find(q: Queryable, id: string): Promise<AccountRow | undefined> {
    return (await q.query<AccountRow>('select * from accounts where id = $1', [id]))[0];
  }

  async findByFtpUsername(q: Queryable, username: string): Promise<AccountRow | undefined> {
    return (await q.query<AccountRow>('select * from accounts where ftp_username = $1', [username]))[0];
  }

  /** The account and mode whose personal import address carries this token. */
  async findByImportToken(q: Queryable, token: string): Promise<Scope | undefined> {
    const rows = await q.query<{ id: string; mode: Mode }>(
      `select id, case when import_token_live = $1 then 'live' else 'test' end as mode
         from accounts where import_token_live = $1 or import_token_test = $1`,
      [token],
    );
    return rows[0] && { accountId: rows[0].id, mode: rows[0].mode };
  }

  /** The hashes of the scope's active keys, locked until the caller's transaction ends. */
  async lockActiveKeys(q: Queryable, scope: Scope): Promise<string[]> {
    const rows = await q.query<{ hash: string }>('select hash from api_keys where account_id = $1 and mode = $2 and revoked_at is null for update', [
      scope.accountId,
      scope.mode,
    ]);
    return rows.map((r) => r.hash);
  }

  /** Revokes the mode's active keys and stores the new hash, in the caller's transaction. */
  async replaceKey(q: Queryable, scope: Scope, hash: string, hint: string): Promise<void> {
    await q.query('update api_keys set revoked_at = now() where account_id = $1 and mode = $2 and revoked_at is null', [scope.accountId, scope.mode]);
    await q.query('insert into api_keys (hash, account_id, mode, hint) values ($1, $2, $3, $4)', [hash, scope.accountId, scope.mode, hint]);
  }

  /** The hash of the scope's active key: it changes when the key is rotated. */
  async activeKeyHash(q: Queryable, scope: Scope): Promise<string | undefined> {
    const rows = await q.query<{ hash: string }>(
      'select k.hash from api_keys k join accounts a on a.id = k.account_id where k.account_id = $1 and k.mode = $2 and k.revoked_at is null and a.disabled_at is null',
      [scope.accountId, scope.mode],
      { prepare: true },
    );
    return rows[0]?.hash;
  }

  /** The hints (prefix, first and last 4 characters) of the account's active keys, by mode. */
  async keyHints(q: Queryable, accountId: string): Promise<Partial<Record<Mode, string>>> {
    const rows = await q.query<{ mode: Mode; hint: string }>('select mode, hint from api_keys where account_id = $1 and revoked_at is null', [accountId]);
    return Object.fromEntries(rows.map((r) => [r.mode, r.hint]));
  }

  async findKey(q: Queryable, hash: string): Promise<KeyOwner | undefined> {
    const rows = await q.query<{ account_id: string; mode: Mode; disabled: boolean }>(
      'select k.account_id, k.mode, a.disabled_at is not null as disabled from api_keys k join accounts a on a.id = k.account_id where k.hash = $1 and k.revoked_at is null',
      [hash],
      { prepare: true },
    );
    return rows[0] && { accountId: rows[0].account_id, mode: rows[0].mode, disabled: rows[0].disabled };
  }

  async noteKeyUse(q: Queryable, scope: Scope, channel: string, address: string): Promise<void> {
    await q.query(
      `insert into api_key_uses (account_id, mode, channel, address) values ($1, $2, $3, $4)
       on conflict (account_id, mode, channel, address) do update set last_used_at = now()`,
      [scope.accountId, scope.mode, channel, address],
    );
  }

  /** The scope's API key uses since `since`, newest first (at most 20). */
  async keyUses(q: Queryable, scope: Scope, since: Date): Promise<{ channel: string; address: string; last_used_at: Date }[]> {
    return q.query(
      'select channel, address, last_used_at from api_key_uses where account_id = $1 and mode = $2 and last_used_at >= $3 order by last_used_at desc limit 20',
      [scope.accountId, scope.mode, since],
    );
  }

  async isDisabled(q: Queryable, id: string): Promise<boolean> {
    // prepared: every received file asks
    return (await q.query('select 1 from accounts where id = $1 and disabled_at is not null', [id], { prepare: true })).length > 0;
  }

  /** Sets or clears disabled_at (kept from the first disable); undefined when there is no such account. */
  async setDisabled(q: Queryable, id: string, disabled: boolean): Promise<AccountRow | undefined> {
    const sql = disabled ? 'disabled_at = coalesce(disabled_at, now())' : 'disabled_at = null';
    return (await q.query<AccountRow>(`update accounts set ${sql} where id = $1 returning *`, [id]))[0];
  }

  /** Newest first, across the installation (operators); `search` matches the name (part), id or FTP user. */
  async page(q: Queryable, req: PageRequest, search?: string): Promise<Page<AccountRow>> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (search) {
      params.push(search, `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(id = $1 or ftp_username = lower($1) or name ilike $2)`);
    }
    if (req.from) {
      if (!(await this.find(q, req.from))) throw DomainError.invalid(`Field from names no item of this list: ${req.from}`, 'from');
      // compared in SQL: a JS Date would drop the timestamp's microseconds
      params.push(req.from);
      where.push(`(created_at, id) <= (select created_at, id from accounts where id = $${params.length})`);
    }
    const rows = await q.query<AccountRow>(
      `select * from accounts ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at desc, id desc limit ${req.limit + 1}`,
      params,
    );
    return { items: rows.slice(0, req.limit), ...(rows.length > req.limit ? { next: rows[req.limit].id } : {}) };
  }
}
