// One FTP control connection's state: who logged in, its virtual directory, the transfer in
// progress, the idle timer, and the queue that runs its commands one after the other.
import type { Scope } from '../../domain/scope.ts';
import type { ControlConnection } from './ftp-srv-internals.ts';
import type { IntakeFileSystem } from './intake-file-system.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';
import { IdleTimer } from '../transfer/idle-timer.ts';
import type { PreLoginTicket } from '../transfer/pre-login-gate.ts';

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
  /** idle: no command (FTP) or request (SFTP) for the idle time-out, before login at most a minute (transfer/idle-timer.ts) */
  readonly idle: IdleTimer;

  constructor(
    readonly connection: ControlConnection,
    /** a short id for logs and the pipeline's trace id */
    readonly id: string,
    idleTimeoutMs: number,
    onIdle: (s: FtpSession) => void,
  ) {
    this.address = normalizeAddress(connection.socket.remoteAddress);
    this.idle = new IdleTimer(
      idleTimeoutMs,
      () => ({ loggedIn: Boolean(this.scope), closed: this.closed, busy: Boolean(this.transfer) }),
      () => onIdle(this),
    );
  }

  /** The client is gone: stop the transfer and the timer. */
  markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.idle.stop();
    this.transfer?.abort.abort();
  }
}
