// Account users: invites (one-time, 24 h), passwords, sign-in and sessions for the dashboard.
// Invite and session tokens are random; only their sha256 is stored.
import { hash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import { newId, randomToken } from '../domain/ids.ts';
import type { Mode } from '../domain/scope.ts';
import { accountRepository as accounts } from '../repositories/account-repository.ts';
import { userRepository as users, type SessionRow, type UserRow } from '../repositories/user-repository.ts';
import { dummyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import { isTotpSecret, totpStep } from './second-factor.ts';

export const INVITE_HOURS = 24;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,}$/;
const sha256 = (token: string) => hash('sha256', token, 'hex');

export interface UserView {
  id: string;
  email: string;
  /** invited: no password yet (or a new invite pending) */
  status: 'invited' | 'active';
  createdAt: string;
}

export type Session = SessionRow;

const view = (u: UserRow): UserView => ({ id: u.id, email: u.email, status: u.password_hash ? 'active' : 'invited', createdAt: new Date(u.created_at).toISOString() });

export class UserService {
  constructor(
    private readonly db: Database,
    private readonly idleMinutes: number,
  ) {}

  /** Invites a person (or re-invites one: a password reset); the token is shown only now. */
  async invite(accountId: string, email: string): Promise<UserView & { token: string }> {
    const address = email?.trim() ?? '';
    if (!EMAIL.test(address) || address.length > 254) throw DomainError.invalid('Field email must be an e-mail address', 'email');
    if (!(await accounts.find(this.db, accountId))) throw DomainError.notFound('account', accountId);
    const token = randomToken(40);
    const row = await users.upsertInvite(this.db, { id: newId('usr'), accountId, email: address, inviteHash: sha256(token), expiresAt: new Date(Date.now() + INVITE_HOURS * 3_600_000) });
    if (!row) throw DomainError.conflict(`The e-mail address ${address} signs in to another account already`, 'email');
    return { ...view(row), token };
  }

  async list(accountId: string): Promise<UserView[]> {
    if (!(await accounts.find(this.db, accountId))) throw DomainError.notFound('account', accountId);
    return (await users.list(this.db, accountId)).map(view);
  }

  /** Removes the person; their sessions end with them. */
  async remove(accountId: string, userId: string): Promise<void> {
    if (!(await users.remove(this.db, accountId, userId))) throw DomainError.notFound('user', userId);
  }

  /** The e-mail address a valid invite is for, or undefined (unknown, used or expired). */
  async inviteEmail(token: string): Promise<string | undefined> {
    return (await users.findInvite(this.db, sha256(token)))?.email;
  }

  /** Sets the password through a valid invite (once); the user's earlier sessions end. */
  async acceptInvite(token: string, password: string): Promise<UserView> {
    if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
      throw DomainError.invalid(`The password must be ${MIN_PASSWORD_LENGTH} to 200 characters`, 'password');
    }
    const row = await users.acceptInvite(this.db, sha256(token), await hashPassword(password));
    if (!row) throw new DomainError('gone', 'This invite link was used already or has expired; ask for a new one');
    return view(row);
  }

  /** The user when the e-mail and password match; the same work is done when the e-mail is unknown. */
  async verify(email: string, password: string): Promise<(UserView & { secondFactor: boolean }) | undefined> {
    const row = await users.findByEmail(this.db, email);
    const ok = await verifyPassword(password, row?.password_hash ?? (await dummyHash()));
    return row?.password_hash && ok ? { ...view(row), secondFactor: row.second_factor } : undefined;
  }

  async hasSecondFactor(userId: string): Promise<boolean> {
    return (await users.totpSecret(this.db, userId)) !== undefined;
  }

  /** Whether the code is the user's current one, used now for the first time (a code signs in once). */
  async checkSecondFactor(userId: string, code: string): Promise<boolean> {
    const secret = await users.totpSecret(this.db, userId);
    const step = secret ? totpStep(secret, code) : undefined;
    return step !== undefined && (await users.useTotpStep(this.db, userId, step));
  }

  /** Turns the second factor on with a secret the person's app holds, proved by a current code. */
  async enableSecondFactor(userId: string, secret: string, code: string): Promise<void> {
    const step = isTotpSecret(secret) ? totpStep(secret, code) : undefined;
    if (step === undefined) throw DomainError.invalid('The code does not match: enter the 6 digits your app shows now', 'code');
    await users.setTotp(this.db, userId, secret, step);
  }

  /** Turns the second factor off; a current code proves the person still holds it. */
  async disableSecondFactor(userId: string, code: string): Promise<void> {
    if (!(await this.checkSecondFactor(userId, code))) throw DomainError.invalid('The code does not match: enter the 6 digits your app shows now', 'code');
    await users.setTotp(this.db, userId, null, null);
  }

  /** A new session for the user; the token goes into the cookie and nowhere else. */
  async startSession(userId: string): Promise<string> {
    const token = randomToken(43);
    await users.insertSession(this.db, sha256(token), userId);
    return token;
  }

  session(token: string): Promise<Session | undefined> {
    return users.touchSession(this.db, sha256(token), this.idleMinutes);
  }

  setMode(token: string, mode: Mode): Promise<void> {
    return users.setSessionMode(this.db, sha256(token), mode);
  }

  endSession(token: string): Promise<void> {
    return users.deleteSession(this.db, sha256(token));
  }

  purgeIdleSessions(): Promise<void> {
    return users.deleteIdleSessions(this.db, this.idleMinutes);
  }
}
