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
  /** owner: invites and removes colleagues in the dashboard; member: does not */
  role: 'owner' | 'member';
}

export interface SessionRow {
  user_id: string;
  account_id: string;
  email: string;
  mode: Mode;
  last_seen_at: Date;
  /** something waits to be shown once on the next page (the flash) */
  has_flash: boolean;
  role: 'owner' | 'member';
  /** the language the person chose (null: the browser's) */
  language: string | null;
  /** the browser's time zone, as its page reported it */
  time_zone: string | null;
}

const USER_COLUMNS = 'id, account_id, email, password_hash, invite_expires_at, created_at, (totp_secret is not null) as second_factor, role';
// a held invite read as a UserRow: an invited member
const HELD_COLUMNS = "id, account_id, email, null::text as password_hash, invite_expires_at, created_at, false as second_factor, 'member'::text as role";

export class UserRepository {
  /** A new user, or a new invite for an existing one of the same account (a password reset). */
  async upsertInvite(
    q: Queryable,
    u: { id: string; accountId: string; email: string; inviteHash: string; expiresAt: Date; role?: 'owner' | 'member' },
  ): Promise<UserRow | undefined> {
    const rows = await q.query<UserRow>(
      `insert into account_users (id, account_id, email, invite_hash, invite_expires_at, role) values ($1, $2, $3, $4, $5, $6)
       on conflict (lower(email)) do update set invite_hash = excluded.invite_hash, invite_expires_at = excluded.invite_expires_at
         where account_users.account_id = excluded.account_id
       returning ${USER_COLUMNS}`,
      [u.id, u.accountId, u.email, u.inviteHash, u.expiresAt, u.role ?? 'owner'],
    );
    return rows[0];
  }

  /** The account's people, held invites among them (as invited members). */
  async list(q: Queryable, accountId: string): Promise<UserRow[]> {
    return q.query<UserRow>(
      `select ${USER_COLUMNS} from account_users where account_id = $1
       union all select ${HELD_COLUMNS} from held_invites where account_id = $1
       order by created_at, id`,
      [accountId],
    );
  }

  /** Removes a person or a held invite of the account. */
  /** Gives a person of the account another role; the role they had, or undefined when there is no such person. */
  async setRole(q: Queryable, accountId: string, userId: string, role: 'owner' | 'member'): Promise<'owner' | 'member' | undefined> {
    const rows = await q.query<{ from_role: 'owner' | 'member' }>(
      `with old as (select id, role from account_users where account_id = $1 and id = $2 for update)
       update account_users u set role = $3 from old where u.id = old.id returning old.role as from_role`,
      [accountId, userId, role],
    );
    return rows[0]?.from_role;
  }

  async remove(q: Queryable, accountId: string, userId: string): Promise<boolean> {
    const rows = await q.query(
      `with u as (delete from account_users where account_id = $1 and id = $2 returning id), h as (delete from held_invites where account_id = $1 and id = $2 returning id)
       select id from u union all select id from h`,
      [accountId, userId],
    );
    return rows.length > 0;
  }

  /** Holds an invite of an address that signs in to another account (a new token for one held already). */
  async holdInvite(q: Queryable, h: { id: string; accountId: string; email: string; inviteHash: string; expiresAt: Date }): Promise<UserRow> {
    const rows = await q.query<UserRow>(
      `insert into held_invites (id, account_id, email, invite_hash, invite_expires_at) values ($1, $2, $3, $4, $5)
       on conflict (account_id, lower(email)) do update set invite_hash = excluded.invite_hash, invite_expires_at = excluded.invite_expires_at
       returning ${HELD_COLUMNS}`,
      [h.id, h.accountId, h.email, h.inviteHash, h.expiresAt],
    );
    return rows[0];
  }

  /** Drops the account's held invite of the address (a real invite took its place). */
  async dropHeldInvite(q: Queryable, accountId: string, email: string): Promise<void> {
    await q.query('delete from held_invites where account_id = $1 and lower(email) = lower($2)', [accountId, email]);
  }

  async isHeldInvite(q: Queryable, inviteHash: string): Promise<boolean> {
    return (await q.query('select 1 from held_invites where invite_hash = $1', [inviteHash])).length > 0;
  }

  async findByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
    return (await q.query<UserRow>(`select ${USER_COLUMNS} from account_users where lower(email) = lower($1)`, [email.trim()]))[0];
  }

  /** Takes a valid invite (once): sets the password, clears the invite and the second factor, ends the user's sessions. */
  async acceptInvite(q: Queryable, inviteHash: string, passwordHash: string): Promise<UserRow | undefined> {
    const rows = await q.query<UserRow>(
      `update account_users set password_hash = $2, invite_hash = null, invite_expires_at = null, totp_secret = null, totp_last_step = null, recovery_codes = null
       where invite_hash = $1 and invite_expires_at > now() returning ${USER_COLUMNS}`,
      [inviteHash, passwordHash],
    );
    if (rows[0]) await q.query('delete from user_sessions where user_id = $1', [rows[0].id]);
    return rows[0];
  }

  async passwordHash(q: Queryable, userId: string): Promise<string | undefined> {
    return (await q.query<{ password_hash: string | null }>('select password_hash from account_users where id = $1', [userId]))[0]?.password_hash ?? undefined;
  }

  /** A new password; every session of the user but the one that changed it ends. */
  async setPassword(q: Queryable, userId: string, passwordHash: string, keepSessionHash: string): Promise<void> {
    await q.query('update account_users set password_hash = $2 where id = $1', [userId, passwordHash]);
    await q.query('delete from user_sessions where user_id = $1 and hash <> $2', [userId, keepSessionHash]);
  }

  /** A reset token for a person who has a password; undefined for an unknown e-mail or one still invited. */
  async setReset(q: Queryable, email: string, resetHash: string, expiresAt: Date): Promise<{ id: string; email: string; language: string | null } | undefined> {
    return (
      await q.query<{ id: string; email: string; language: string | null }>(
        'update account_users set reset_hash = $2, reset_expires_at = $3 where lower(email) = lower($1) and password_hash is not null returning id, email, language',
        [email.trim(), resetHash, expiresAt],
      )
    )[0];
  }

  async findReset(q: Queryable, resetHash: string): Promise<string | undefined> {
    return (await q.query<{ email: string }>('select email from account_users where reset_hash = $1 and reset_expires_at > now()', [resetHash]))[0]?.email;
  }

  /** Takes a valid reset (once): a new password, the second factor kept, every session ended. */
  async acceptReset(q: Queryable, resetHash: string, passwordHash: string): Promise<boolean> {
    const rows = await q.query<{ id: string }>(
      'update account_users set password_hash = $2, reset_hash = null, reset_expires_at = null where reset_hash = $1 and reset_expires_at > now() returning id',
      [resetHash, passwordHash],
    );
    if (rows[0]) await q.query('delete from user_sessions where user_id = $1', [rows[0].id]);
    return rows.length > 0;
  }

  async findInvite(q: Queryable, inviteHash: string): Promise<UserRow | undefined> {
    return (await q.query<UserRow>(`select ${USER_COLUMNS} from account_users where invite_hash = $1 and invite_expires_at > now()`, [inviteHash]))[0];
  }

  async totpSecret(q: Queryable, userId: string): Promise<string | undefined> {
    return (await q.query<{ totp_secret: string | null }>('select totp_secret from account_users where id = $1', [userId]))[0]?.totp_secret ?? undefined;
  }

  /** The TOTP keys still stored as the code before 2026-12 wrote them: clear base32. */
  async clearTotpSecrets(q: Queryable): Promise<{ id: string; totp_secret: string }[]> {
    return q.query<{ id: string; totp_secret: string }>(
      "select id, totp_secret from account_users where totp_secret is not null and totp_secret not like 'v1:%'",
    );
  }

  async anyTotpSecret(q: Queryable): Promise<boolean> {
    return (await q.query('select 1 from account_users where totp_secret is not null limit 1')).length > 0;
  }

  /** Replaces the stored key only if it is still `from` (another node may have sealed it first). */
  async replaceTotpSecret(q: Queryable, userId: string, from: string, to: string): Promise<void> {
    await q.query('update account_users set totp_secret = $3 where id = $1 and totp_secret = $2', [userId, from, to]);
  }

  /** Turns the second factor on (with the step of the code that proved it and the recovery codes' hashes) or off (nulls). */
  async setTotp(q: Queryable, userId: string, secret: string | null, step: number | null, recoveryHashes: string[] | null = null): Promise<void> {
    await q.query('update account_users set totp_secret = $2, totp_last_step = $3, recovery_codes = $4 where id = $1', [userId, secret, step, recoveryHashes]);
  }

  /** Uses a recovery code (once): true when it was one of the user's. */
  async useRecoveryCode(q: Queryable, userId: string, hash: string): Promise<boolean> {
    const rows = await q.query(
      'update account_users set recovery_codes = array_remove(recovery_codes, $2) where id = $1 and $2 = any(recovery_codes) returning id',
      [userId, hash],
    );
    return rows.length > 0;
  }

  async recoveryCodesLeft(q: Queryable, userId: string): Promise<number> {
    return (await q.query<{ n: number }>('select coalesce(cardinality(recovery_codes), 0)::int as n from account_users where id = $1', [userId]))[0]?.n ?? 0;
  }

  /** Records a code's step as used; false when that step (or a later one) was used already. */
  async useTotpStep(q: Queryable, userId: string, step: number): Promise<boolean> {
    const rows = await q.query(
      'update account_users set totp_last_step = $2 where id = $1 and totp_secret is not null and (totp_last_step is null or totp_last_step < $2) returning id',
      [userId, step],
    );
    return rows.length > 0;
  }

  /** A new session, unless the user's account is disabled (false then: nothing was inserted). */
  async insertSession(q: Queryable, hash: string, userId: string): Promise<boolean> {
    const rows = await q.query(
      `insert into user_sessions (hash, user_id) select $1, u.id from account_users u join accounts a on a.id = u.account_id
       where u.id = $2 and a.disabled_at is null returning hash`,
      [hash, userId],
    );
    return rows.length > 0;
  }

  /** Ends every session of the account's people (the account was disabled). */
  async deleteAccountSessions(q: Queryable, accountId: string): Promise<void> {
    await q.query('delete from user_sessions s using account_users u where u.id = s.user_id and u.account_id = $1', [accountId]);
  }

  /** The live session with this hash (seen within `idleMinutes`, its account enabled); refreshes last_seen_at at most once a minute. */
  async touchSession(q: Queryable, hash: string, idleMinutes: number): Promise<SessionRow | undefined> {
    const rows = await q.query<SessionRow>(
      `select s.user_id, u.account_id, u.email, s.mode, s.last_seen_at, (s.flash is not null) as has_flash, u.role, u.language, s.time_zone from user_sessions s join account_users u on u.id = s.user_id
       join accounts a on a.id = u.account_id and a.disabled_at is null
       where s.hash = $1 and s.last_seen_at > now() - make_interval(mins => $2::int)`,
      [hash, idleMinutes],
      { prepare: true },
    );
    const s = rows[0];
    if (s && Date.now() - new Date(s.last_seen_at).getTime() > 60_000) await q.query('update user_sessions set last_seen_at = now() where hash = $1', [hash]);
    return s;
  }

  async setSessionMode(q: Queryable, hash: string, mode: Mode): Promise<void> {
    await q.query('update user_sessions set mode = $2 where hash = $1', [hash, mode]);
  }

  async setLanguage(q: Queryable, userId: string, language: string): Promise<void> {
    await q.query('update account_users set language = $2 where id = $1', [userId, language]);
  }

  async setSessionTimeZone(q: Queryable, hash: string, timeZone: string): Promise<void> {
    await q.query('update user_sessions set time_zone = $2 where hash = $1', [hash, timeZone]);
  }

  /** Adds to the session's flash (keys given replace the same keys). */
  async addFlash(q: Queryable, hash: string, flash: Record<string, unknown>): Promise<void> {
    await q.query(`update user_sessions set flash = coalesce(flash, '{}'::jsonb) || $2::jsonb where hash = $1`, [hash, JSON.stringify(flash)]);
  }

  /** The session's flash, cleared in the same statement (two tabs never both get it). */
  async takeFlash(q: Queryable, hash: string): Promise<Record<string, unknown> | undefined> {
    const rows = await q.query<{ flash: Record<string, unknown> }>(
      `update user_sessions s set flash = null from (select hash, flash from user_sessions where hash = $1 for update) o
       where s.hash = o.hash and o.flash is not null returning o.flash`,
      [hash],
    );
    return rows[0]?.flash;
  }

  async deleteSession(q: Queryable, hash: string): Promise<void> {
    await q.query('delete from user_sessions where hash = $1', [hash]);
  }

  /** Sessions idle for longer than the limit (housekeeping). */
  async deleteIdleSessions(q: Queryable, idleMinutes: number): Promise<void> {
    await q.query('delete from user_sessions where last_seen_at < now() - make_interval(mins => $1::int)', [idleMinutes]);
  }
}
