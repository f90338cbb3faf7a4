// One FTP control connection's state: who logged in, its virtual directory, the transfer in
// progress, the idle timer, and the queue that runs its commands one after the other.
import type { Scope } from '../../domain/scope.ts';
import type { ControlConnection } from './ftp-srv-internals.ts';
import type { IntakeFileSystem } from './intake-file-system.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';
import type { PreLoginTicket } from '../transfer/pre-login-gate.ts';

export const LOGIN_TIMEOUT_MS = 60_000;

export interface ActiveTransfer {
  abort: AbortController;
  /** settles when the STOR handler has finished (and replied) */
  done: Promise<void>;
}

export class FtpSession {
  readonly address: string;
  readonly startedAt = Date.now();
  scope?: Scope;
  username?: string;
  /** the key the session logged in with, to notice its rotation (never logged) */
  key?: string;
  fs?: IntakeFileSystem;
  transfer?: ActiveTransfer;
  renameFrom?: string;
  /** TYPE I (or L 8) was sent: until then the type is ASCII, RFC 959's default, in which clients
   * such as Commons Net and Perl's Net::FTP convert line ends before sending (upload-command.ts) */
  binary = false;
  /** data connections are TLS: PROT P, or an implicit FTPS connection */
  protectData = false;
  closed = false;
  /** its place in the limits before login, until it logs in */
  preLogin?: PreLoginTicket;
  /** commands run in order; a STOR does not pause the control socket (see ftp-commands.ts) */
  queue: Promise<unknown> = Promise.resolve();
  private lastActivity = Date.now();
  private idleTimer?: NodeJS.Timeout;

  constructor(
    readonly connection: ControlConnection,
    /** a short id for logs and the pipeline's trace id */
    readonly id: string,
    private readonly idleTimeoutMs: number,
    private readonly onIdle: (s: FtpSession) => void,
  ) {
    this.address = normalizeAddress(connection.socket.remoteAddress);
  }

  touch(): void {
    this.lastActivity = Date.now();
  }

  /** A session that has not logged in gets at most a minute: idle connections are not free. */
  private get limitMs(): number {
    return this.scope ? this.idleTimeoutMs : Math.min(this.idleTimeoutMs, LOGIN_TIMEOUT_MS);
  }

  /** Idle means no command and no transfer for idleTimeoutMs (a transfer has its own stall timeout). */
  armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    const left = this.lastActivity + this.limitMs - Date.now();
    this.idleTimer = setTimeout(() => {
      if (this.closed) return;
      if (this.transfer || Date.now() - this.lastActivity < this.limitMs) {
        if (this.transfer) this.touch();
        return this.armIdleTimer();
      }
      this.onIdle(this);
    }, Math.max(left, 10));
    this.idleTimer.unref();
  }

  /** The client is gone: stop the transfer and the timer. */
  markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.transfer?.abort.abort();
  }
}
