// Account users: invites (one-time, 24 h), passwords, sign-in and sessions for the dashboard.
// Invite and session tokens are random; only their sha256 is stored. TOTP keys are sealed with
// the SecretBox (AES-256-GCM); a clear one written before that is sealed at start and on read.
import { hash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import type { Mode } from '../domain/scope.ts';
import type { SessionRow, UserRow } from '../repositories/user-repository.ts';
import type { AccountService } from './account-service.ts';
import { dummyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import { isTotpSecret, newRecoveryCodes, normalRecoveryCode, totpStep } from './second-factor.ts';
import { SecretBox } from './secret-box.ts';

export const INVITE_HOURS = 24;
export const RESET_MINUTES = 60;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,}$/;
const sha256 = (token: string) => hash('sha256', token, 'hex');

export interface UserView {
  id: string;
  email: string;
  /** invited: no password yet (or a new invite pending) */
  status: 'invited' | 'active';
  role: 'owner' | 'member';
  createdAt: string;
}

export type Session = SessionRow;

const view = (u: UserRow): UserView => ({
  id: u.id,
  email: u.email,
  status: u.password_hash ? 'active' : 'invited',
  role: u.role,
  createdAt: new Date(u.created_at).toISOString(),
});

interface UserServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'users'>;
  /** a person is invited to an account that exists */
  accounts: Pick<AccountService, 'require'>;
  idleMinutes: number;
  /** seals TOTP keys; undefined (PostgreSQL without SECRETS_KEY): two-step sign-in cannot be turned on */
  box?: SecretBox;
}

export class UserService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'users'>;
  private readonly accounts: Pick<AccountService, 'require'>;
  private readonly idleMinutes: number;
  private readonly box: SecretBox | undefined;

  constructor(o: UserServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.accounts = o.accounts;
    this.idleMinutes = o.idleMinutes;
    this.box = o.box;
  }

  /**
   * At start: seals every TOTP key still stored in clear. Without a key it refuses to start once
   * anyone uses two-step sign-in: their keys could not be read or kept safe.
   */
  async prepareSecrets(): Promise<number> {
    if (!this.box) {
      if (await this.repos.users.anyTotpSecret(this.db))
        throw new Error(
          'SECRETS_KEY is required: people of this installation use two-step sign-in, and their TOTP keys are encrypted with it (docs/operations.md)',
        );
      return 0;
    }
    const clear = await this.repos.users.clearTotpSecrets(this.db);
    for (const row of clear) await this.repos.users.replaceTotpSecret(this.db, row.id, row.totp_secret, this.box.seal(row.totp_secret, row.id));
    return clear.length;
  }

  /** The person's TOTP key in clear; one still stored in clear is sealed on the way. */
  private async totpKey(userId: string): Promise<string | undefined> {
    const stored = await this.repos.users.totpSecret(this.db, userId);
    if (stored === undefined) return undefined;
    if (SecretBox.isSealed(stored)) {
      if (!this.box) throw DomainError.unavailable('Two-step sign-in needs SECRETS_KEY on this installation');
      try {
        return this.box.open(stored, userId);
      } catch {
        throw DomainError.unavailable('The TOTP key does not open with this SECRETS_KEY (was the key changed?)');
      }
    }
    if (this.box) await this.repos.users.replaceTotpSecret(this.db, userId, stored, this.box.seal(stored, userId));
    return stored;
  }

  /**
   * Invites a person (or re-invites one: a password reset); the token is shown only now. An address
   * that signs in to another account is refused (409: the operator's admin API), or with `hold`
   * (an owner's invite, who must not learn that) held: it answers like any invite, its link sets nothing.
   */
  async invite(accountId: string, email: string, role: 'owner' | 'member' = 'owner', { hold = false } = {}): Promise<UserView & { token: string }> {
    const address = email?.trim() ?? '';
    if (!EMAIL.test(address) || address.length > 254) throw DomainError.invalid('Field email must be an e-mail address', 'email');
    await this.accounts.require(accountId);
    const token = randomToken(40);
    const invite = { id: newId('usr'), accountId, email: address, inviteHash: sha256(token), expiresAt: new Date(Date.now() + INVITE_HOURS * 3_600_000) };
    const row = await this.repos.users.upsertInvite(this.db, { ...invite, role });
    if (row) await this.repos.users.dropHeldInvite(this.db, accountId, address);
    else if (hold) return { ...view(await this.repos.users.holdInvite(this.db, invite)), token };
    else throw DomainError.conflict(`The e-mail address ${address} signs in to another account already`, 'email');
    return { ...view(row), token };
  }

  /** Whether the token is a held invite's (its address signs in to another account). */
  isHeldInvite(token: string): Promise<boolean> {
    return this.repos.users.isHeldInvite(this.db, sha256(token));
  }

  async list(accountId: string): Promise<UserView[]> {
    await this.accounts.require(accountId);
    return (await this.repos.users.list(this.db, accountId)).map(view);
  }

  /** Gives a person another role (owner or member): their next request has it. The role they had, and the new one. */
  async setRole(accountId: string, userId: string, role: unknown): Promise<{ from: 'owner' | 'member'; to: 'owner' | 'member' }> {
    if (role !== 'owner' && role !== 'member') throw DomainError.invalid('Field role must be owner or member', 'role');
    const from = await this.repos.users.setRole(this.db, accountId, userId, role);
    if (!from) throw DomainError.notFound('user', userId);
    return { from, to: role };
  }

  /** Removes the person; their sessions end with them. */
  async remove(accountId: string, userId: string): Promise<void> {
    if (!(await this.repos.users.remove(this.db, accountId, userId))) throw DomainError.notFound('user', userId);
  }

  /** The e-mail address a valid invite is for, or undefined (unknown, used or expired). */
  async inviteEmail(token: string): Promise<string | undefined> {
    return (await this.repos.users.findInvite(this.db, sha256(token)))?.email;
  }

  /** Sets the password through a valid invite (once); the user's earlier sessions end. */
  async acceptInvite(token: string, password: string): Promise<UserView> {
    if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
      throw DomainError.invalid(`The password must be ${MIN_PASSWORD_LENGTH} to 200 characters`, 'password');
    }
    const row = await this.repos.users.acceptInvite(this.db, sha256(token), await hashPassword(password));
    if (!row) throw new DomainError('gone', 'This invite link was used already or has expired; ask for a new one');
    return view(row);
  }

  /** A one-hour reset link's token for a person with a password (undefined otherwise: the caller says the same either way). */
  async requestReset(email: string): Promise<{ token: string; email: string; language: string | null } | undefined> {
    if (!EMAIL.test(email?.trim() ?? '')) return undefined;
    const token = randomToken(40);
    const user = await this.repos.users.setReset(this.db, email, sha256(token), new Date(Date.now() + RESET_MINUTES * 60_000));
    return user && { token, email: user.email, language: user.language };
  }

  resetEmail(token: string): Promise<string | undefined> {
    return this.repos.users.findReset(this.db, sha256(token));
  }

  /** Sets the new password through a valid reset link (once); two-step sign-in stays as it was. */
  async acceptReset(token: string, password: string): Promise<void> {
    if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
      throw DomainError.invalid(`The password must be ${MIN_PASSWORD_LENGTH} to 200 characters`, 'password');
    }
    if (!(await this.repos.users.acceptReset(this.db, sha256(token), await hashPassword(password))))
      throw new DomainError('gone', 'This reset link was used already or has expired');
  }

  /** The user when the e-mail and password match; the same work is done when the e-mail is unknown. */
  async verify(email: string, password: string): Promise<(UserView & { secondFactor: boolean }) | undefined> {
    const row = await this.repos.users.findByEmail(this.db, email);
    const ok = await verifyPassword(password, row?.password_hash ?? (await dummyHash()));
    return row?.password_hash && ok ? { ...view(row), secondFactor: row.second_factor } : undefined;
  }

  /** Changes the password when the current one is right; the person's other sessions end. */
  async changePassword(userId: string, sessionToken: string, current: string, next: string): Promise<void> {
    const stored = await this.repos.users.passwordHash(this.db, userId);
    if (!stored || !(await verifyPassword(current, stored))) throw DomainError.invalid('The current password is not right', 'current');
    if (typeof next !== 'string' || next.length < MIN_PASSWORD_LENGTH || next.length > 200)
      throw DomainError.invalid(`The password must be ${MIN_PASSWORD_LENGTH} to 200 characters`, 'password');
    await this.repos.users.setPassword(this.db, userId, await hashPassword(next), sha256(sessionToken));
  }

  async hasSecondFactor(userId: string): Promise<boolean> {
    return (await this.repos.users.totpSecret(this.db, userId)) !== undefined;
  }

  /** Whether the code is the user's current one, used now for the first time (a code signs in once). */
  async checkSecondFactor(userId: string, code: string): Promise<boolean> {
    const secret = await this.totpKey(userId);
    const step = secret ? totpStep(secret, code) : undefined;
    return step !== undefined && (await this.repos.users.useTotpStep(this.db, userId, step));
  }

  /** Turns the second factor on with a secret the person's app holds, proved by a current code; returns ten recovery codes (shown once, stored hashed). */
  async enableSecondFactor(userId: string, secret: string, code: string): Promise<string[]> {
    const step = isTotpSecret(secret) ? totpStep(secret, code) : undefined;
    if (step === undefined) throw DomainError.invalid('The code does not match: enter the 6 digits your app shows now', 'code');
    if (!this.box) throw DomainError.unprocessable('Two-step sign-in needs SECRETS_KEY on this installation: ask its operator', 'code');
    const codes = newRecoveryCodes();
    await this.repos.users.setTotp(this.db, userId, this.box.seal(secret, userId), step, codes.map(sha256));
    return codes;
  }

  /** Whether the code is one of the user's unused recovery codes; it is used up. */
  async useRecoveryCode(userId: string, code: string): Promise<boolean> {
    const normal = normalRecoveryCode(code);
    return normal !== undefined && (await this.repos.users.useRecoveryCode(this.db, userId, sha256(normal)));
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return this.repos.users.recoveryCodesLeft(this.db, userId);
  }

  /** Turns the second factor off; a current code proves the person still holds it. */
  async disableSecondFactor(userId: string, code: string): Promise<void> {
    if (!(await this.checkSecondFactor(userId, code))) throw DomainError.invalid('The code does not match: enter the 6 digits your app shows now', 'code');
    await this.repos.users.setTotp(this.db, userId, null, null);
  }

  /** A new session for the user; the token goes into the cookie and nowhere else. A disabled account's people get none. */
  async startSession(userId: string): Promise<string> {
    const token = randomToken(43);
    if (!(await this.repos.users.insertSession(this.db, sha256(token), userId)))
      throw DomainError.unauthorized('This account is disabled; its operator can enable it again');
    return token;
  }

  /**
   * Ends the sessions of the account's people: called when it is disabled, so that enabling it
   * again needs a fresh sign-in. (While it is disabled no session opens anything anyway: the
   * session lookup joins the account.)
   */
  endAccountSessions(accountId: string): Promise<void> {
    return this.repos.users.deleteAccountSessions(this.db, accountId);
  }

  session(token: string): Promise<Session | undefined> {
    return this.repos.users.touchSession(this.db, sha256(token), this.idleMinutes);
  }

  setMode(token: string, mode: Mode): Promise<void> {
    return this.repos.users.setSessionMode(this.db, sha256(token), mode);
  }

  /** The person's language for the dashboard and its e-mails (checked by the caller: en, nl, de). */
  setLanguage(userId: string, language: string): Promise<void> {
    return this.repos.users.setLanguage(this.db, userId, language);
  }

  /** The time zone the session's browser reported. */
  setTimeZone(token: string, timeZone: string): Promise<void> {
    return this.repos.users.setSessionTimeZone(this.db, sha256(token), timeZone);
  }

  /** Keeps something for the session's next page view only (the dashboard's flash). */
  addFlash(token: string, flash: Record<string, unknown>): Promise<void> {
    return this.repos.users.addFlash(this.db, sha256(token), flash);
  }

  /** What was kept for this view; gone for the next one. */
  takeFlash(token: string): Promise<Record<string, unknown> | undefined> {
    return this.repos.users.takeFlash(this.db, sha256(token));
  }

  endSession(token: string): Promise<void> {
    return this.repos.users.deleteSession(this.db, sha256(token));
  }

  purgeIdleSessions(): Promise<void> {
    return this.repos.users.deleteIdleSessions(this.db, this.idleMinutes);
  }
}
