// Account users (people who sign in to the dashboard) and their sessions. Users belong to one
// account; a session row is looked up by the sha256 of the cookie's token.
import type { Queryable } from '../db/database.ts';
import type { Mode } from '../domain/scope.ts';

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string | null;
  invite_expires_at: Date | null;
  created_at: Date;
  /** a TOTP second factor is on */
  second_factor: boolean;
}

export interface SessionRow {
  user_id: string;
  account_id: string;
  email: string;
  mode: Mode;
  last_seen_at: Date;
}

const USER_COLUMNS = 'id, account_id, email, password_hash, invite_expires_at, created_at, (totp_secret is not null) as second_factor';

export const userRepository = {
  /** A new user, or a new invite for an existing one of the same account (a password reset). */
  async upsertInvite(q: Queryable, u: { id: string; accountId: string; email: string; inviteHash: string; expiresAt: Date }): Promise<UserRow | undefined> {
    const rows = await q.query<UserRow>(
      `insert into account_users (id, account_id, email, invite_hash, invite_expires_at) values ($1, $2, $3, $4, $5)
       on conflict (lower(email)) do update set invite_hash = excluded.invite_hash, invite_expires_at = excluded.invite_expires_at
         where account_users.account_id = excluded.account_id
       returning ${USER_COLUMNS}`,
      [u.id, u.accountId, u.email, u.inviteHash, u.expiresAt],
    );
    return rows[0];
  },

  async list(q: Queryable, accountId: string): Promise<UserRow[]> {
    return q.query<UserRow>(`select ${USER_COLUMNS} from account_users where account_id = $1 order by created_at, id`, [accountId]);
  },

  async remove(q: Queryable, accountId: string, userId: string): Promise<boolean> {
    return (await q.query('delete from account_users where account_id = $1 and id = $2 returning id', [accountId, userId])).length > 0;
  },

  async findByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
    return (await q.query<UserRow>(`select ${USER_COLUMNS} from account_users where lower(email) = lower($1)`, [email.trim()]))[0];
  },

  /** Takes a valid invite (once): sets the password, clears the invite and the second factor, ends the user's sessions. */
  async acceptInvite(q: Queryable, inviteHash: string, passwordHash: string): Promise<UserRow | undefined> {
    const rows = await q.query<UserRow>(
      `update account_users set password_hash = $2, invite_hash = null, invite_expires_at = null, totp_secret = null, totp_last_step = null
       where invite_hash = $1 and invite_expires_at > now() returning ${USER_COLUMNS}`,
      [inviteHash, passwordHash],
    );
    if (rows[0]) await q.query('delete from user_sessions where user_id = $1', [rows[0].id]);
    return rows[0];
  },

  async findInvite(q: Queryable, inviteHash: string): Promise<UserRow | undefined> {
    return (await q.query<UserRow>(`select ${USER_COLUMNS} from account_users where invite_hash = $1 and invite_expires_at > now()`, [inviteHash]))[0];
  },

  async totpSecret(q: Queryable, userId: string): Promise<string | undefined> {
    return (await q.query<{ totp_secret: string | null }>('select totp_secret from account_users where id = $1', [userId]))[0]?.totp_secret ?? undefined;
  },

  /** Turns the second factor on (with the step of the code that proved it) or off (null). */
  async setTotp(q: Queryable, userId: string, secret: string | null, step: number | null): Promise<void> {
    await q.query('update account_users set totp_secret = $2, totp_last_step = $3 where id = $1', [userId, secret, step]);
  },

  /** Records a code's step as used; false when that step (or a later one) was used already. */
  async useTotpStep(q: Queryable, userId: string, step: number): Promise<boolean> {
    const rows = await q.query('update account_users set totp_last_step = $2 where id = $1 and totp_secret is not null and (totp_last_step is null or totp_last_step < $2) returning id', [userId, step]);
    return rows.length > 0;
  },

  async insertSession(q: Queryable, hash: string, userId: string): Promise<void> {
    await q.query('insert into user_sessions (hash, user_id) values ($1, $2)', [hash, userId]);
  },

  /** The live session with this hash (seen within `idleMinutes`); refreshes last_seen_at at most once a minute. */
  async touchSession(q: Queryable, hash: string, idleMinutes: number): Promise<SessionRow | undefined> {
    const rows = await q.query<SessionRow>(
      `select s.user_id, u.account_id, u.email, s.mode, s.last_seen_at from user_sessions s join account_users u on u.id = s.user_id
       where s.hash = $1 and s.last_seen_at > now() - make_interval(mins => $2::int)`,
      [hash, idleMinutes],
      { prepare: true },
    );
    const s = rows[0];
    if (s && Date.now() - new Date(s.last_seen_at).getTime() > 60_000) await q.query('update user_sessions set last_seen_at = now() where hash = $1', [hash]);
    return s;
  },

  async setSessionMode(q: Queryable, hash: string, mode: Mode): Promise<void> {
    await q.query('update user_sessions set mode = $2 where hash = $1', [hash, mode]);
  },

  async deleteSession(q: Queryable, hash: string): Promise<void> {
    await q.query('delete from user_sessions where hash = $1', [hash]);
  },

  /** Sessions idle for longer than the limit (housekeeping). */
  async deleteIdleSessions(q: Queryable, idleMinutes: number): Promise<void> {
    await q.query('delete from user_sessions where last_seen_at < now() - make_interval(mins => $1::int)', [idleMinutes]);
  },
};
