// The login and session policy FTP/FTPS and SFTP share, written once: a login is refused while its
// address or user is locked out; a wrong password or key counts a failure (Redis, every node),
// may lock the address or user, and delays the refusal; a right one clears the counts. A logged-in
// session then takes a place among its account's sessions on this node (at most
// TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT). The protocols only say how they answer (FTP 530/421,
// SSH's USERAUTH_FAILURE) and what a credential is (a password, an SSH key).
import { setTimeout as sleep } from 'node:timers/promises';
import type { TransferChannel } from '../../domain/channels.ts';
import type { Logger } from '../../platform/logger.ts';
import { failureDelayMs } from './lockout-policy.ts';
import type { LoginLockout } from './login-lockout.ts';
import type { TransferMetrics } from './transfer-metrics.ts';

/** Who tries to log in, as the log lines name it (`session`, `address`, `username`, and what the protocol adds). */
export interface LoginAttempt {
  session: string;
  address: string;
  username: string;
  [field: string]: unknown;
}

/** A check's answer that is no guess at a password (an SSH key offered before signing, an empty password): not counted, already answered. */
export const NOT_A_GUESS = Symbol('not a guess');

export type LoginVerdict<T> = { kind: 'accepted'; login: T } | { kind: 'locked' } | { kind: 'failed' } | { kind: 'not-a-guess' };

export interface TransferLoginDeps {
  lockout: Pick<LoginLockout, 'locked' | 'recordFailure' | 'recordSuccess' | 'settings'>;
  metrics: TransferMetrics;
  log: Logger;
}

export class TransferLogins<Session> {
  private readonly perAccount = new Map<string, Set<Session>>();

  constructor(
    readonly protocol: TransferChannel,
    /** logged-in sessions one account may hold on this node (TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT) */
    readonly maxPerAccount: number,
    private readonly deps: TransferLoginDeps,
  ) {}

  /**
   * One login: the lockout first, then `check` (the protocol's credential check: the login, or
   * undefined for a wrong credential). Throws when Redis cannot be asked: the protocol answers
   * "try again later", and nothing was counted.
   */
  async attempt<T>(at: LoginAttempt, check: () => Promise<T | undefined | typeof NOT_A_GUESS>): Promise<LoginVerdict<T>> {
    const { lockout, metrics, log } = this.deps;
    const fields = { ...at, username: at.username.slice(0, 128) }; // client input: logged cut short
    const locked = await lockout.locked(at.address, at.username);
    if (locked) {
      metrics.inc('loginsRefusedLockedOut');
      log.warn({ ...fields, subject: locked }, `${this.protocol} login refused: locked out`);
      return { kind: 'locked' };
    }
    const login = await check();
    if (login === NOT_A_GUESS) return { kind: 'not-a-guess' };
    if (login === undefined) {
      metrics.inc('loginsFailed');
      const { counts, locked: nowLocked } = await lockout.recordFailure(at.address, at.username);
      log.info({ ...fields, failures: counts }, `${this.protocol} login failed`);
      for (const subject of nowLocked) {
        log.warn({ ...fields, subject, lockoutMs: lockout.settings.lockoutMs }, `${this.protocol} login locked out after repeated failures`);
        metrics.inc('lockouts');
      }
      await sleep(failureDelayMs(Math.max(counts.address, counts.user)));
      return { kind: 'failed' };
    }
    await lockout.recordSuccess(at.address, at.username);
    return { kind: 'accepted', login };
  }

  /** A logged-in session takes its place among its account's; false (counted, logged) when they are all taken. */
  admit(accountId: string, session: Session, at: LoginAttempt): boolean {
    const mine = this.perAccount.get(accountId) ?? new Set<Session>();
    if (mine.size >= this.maxPerAccount) {
      this.deps.metrics.inc('connectionsRefused');
      const reason = `too many connections for the account (at most ${this.maxPerAccount})`;
      this.deps.log.warn(
        { ...at, username: at.username.slice(0, 128), accountId, limit: this.maxPerAccount, reason },
        `${this.protocol} login refused: too many connections for the account`,
      );
      return false;
    }
    this.perAccount.set(accountId, mine.add(session));
    return true;
  }

  /** The session ended: its place is free. */
  release(accountId: string | undefined, session: Session): void {
    const mine = accountId === undefined ? undefined : this.perAccount.get(accountId);
    if (mine?.delete(session) && !mine.size) this.perAccount.delete(accountId!);
  }
}
