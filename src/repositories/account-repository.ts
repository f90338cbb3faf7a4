import type { Queryable } from '../db/database.ts';
import type { Mode, Scope } from '../domain/scope.ts';

export interface AccountRow {
  id: string;
  name: string;
  ftp_username: string;
  import_token_live: string;
  import_token_test: string;
  created_at: Date;
}

export const accountRepository = {
  async insert(q: Queryable, a: Omit<AccountRow, 'created_at'>): Promise<AccountRow> {
    const rows = await q.query<AccountRow>(
      'insert into accounts (id, name, ftp_username, import_token_live, import_token_test) values ($1, $2, $3, $4, $5) returning *',
      [a.id, a.name, a.ftp_username, a.import_token_live, a.import_token_test],
    );
    return rows[0];
  },

  async find(q: Queryable, id: string): Promise<AccountRow | undefined> {
    return (await q.query<AccountRow>('select * from accounts where id = $1', [id]))[0];
  },

  async findByFtpUsername(q: Queryable, username: string): Promise<AccountRow | undefined> {
    return (await q.query<AccountRow>('select * from accounts where ftp_username = $1', [username]))[0];
  },

  /** The account and mode whose personal import address carries this token. */
  async findByImportToken(q: Queryable, token: string): Promise<Scope | undefined> {
    const rows = await q.query<{ id: string; mode: Mode }>(
      `select id, case when import_token_live = $1 then 'live' else 'test' end as mode
         from accounts where import_token_live = $1 or import_token_test = $1`,
      [token],
    );
    return rows[0] && { accountId: rows[0].id, mode: rows[0].mode };
  },

  /** The hashes of the scope's active keys, locked until the caller's transaction ends. */
  async lockActiveKeys(q: Queryable, scope: Scope): Promise<string[]> {
    const rows = await q.query<{ hash: string }>('select hash from api_keys where account_id = $1 and mode = $2 and revoked_at is null for update', [scope.accountId, scope.mode]);
    return rows.map((r) => r.hash);
  },

  /** Revokes the mode's active keys and stores the new hash, in the caller's transaction. */
  async replaceKey(q: Queryable, scope: Scope, hash: string, hint: string): Promise<void> {
    await q.query('update api_keys set revoked_at = now() where account_id = $1 and mode = $2 and revoked_at is null', [scope.accountId, scope.mode]);
    await q.query('insert into api_keys (hash, account_id, mode, hint) values ($1, $2, $3, $4)', [hash, scope.accountId, scope.mode, hint]);
  },

  async findKey(q: Queryable, hash: string): Promise<Scope | undefined> {
    const rows = await q.query<{ account_id: string; mode: Mode }>('select account_id, mode from api_keys where hash = $1 and revoked_at is null', [hash], { prepare: true });
    return rows[0] && { accountId: rows[0].account_id, mode: rows[0].mode };
  },
};
