// When an FTP or SFTP session is idle, decided once for both: no command (FTP) or request (SFTP)
// for the protocol's idle time-out (FTP_IDLE_TIMEOUT_MS, SFTP_IDLE_TIMEOUT_MS), and at most a
// minute before login: idle connections are not free. A session `busy` with a transfer is not
// idle (the transfer has its own stall time-out).

/** The longest a session that has not logged in may stay quiet. */
export const LOGIN_IDLE_MS = 60_000;

/** The session as the timer sees it when it fires. */
export interface IdleState {
  loggedIn: boolean;
  closed: boolean;
  /** a transfer runs: activity, even without commands */
  busy?: boolean;
}

export class IdleTimer {
  private lastActivity = Date.now();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly state: () => IdleState,
    private readonly onIdle: () => void,
  ) {}

  touch(): void {
    this.lastActivity = Date.now();
  }

  private get limitMs(): number {
    return this.state().loggedIn ? this.idleTimeoutMs : Math.min(this.idleTimeoutMs, LOGIN_IDLE_MS);
  }

  arm(): void {
    clearTimeout(this.timer);
    if (this.state().closed) return;
    const left = this.lastActivity + this.limitMs - Date.now();
    this.timer = setTimeout(
      () => {
        if (this.state().closed) return;
        if (this.state().busy) this.touch();
        if (Date.now() - this.lastActivity < this.limitMs) return this.arm();
        this.onIdle();
      },
      Math.max(left, 10),
    );
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
