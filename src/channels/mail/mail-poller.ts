// The poller: keeps one IMAP session to the import mailbox, drains it whenever IDLE reports new
// mail (or the poll interval passes, for servers without IDLE and as a safety net), pings a
// quiet connection so a silently dead one is noticed, and reconnects with backoff after any
// error. A message is claimed before its files go to the intake pipeline and moved only after.
import { EventEmitter } from 'node:events';
import type { Logger } from '../../platform/logger.ts';
import { settledBefore } from '../../platform/timeouts.ts';
import { drainBatch } from './drain-batch.ts';
import type { MailboxSession } from './imap-mailbox.ts';
import type { MailIntake } from './mail-intake.ts';

export interface PollerSettings {
  processedMailbox: string;
  failedMailbox: string;
  /** where automatic mail without files goes (MAIL_AUTOMATIC_MAILBOX; unset: processedMailbox) */
  automaticMailbox?: string;
  pollIntervalMs: number;
  watchdogIntervalMs: number;
  watchdogTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  maxMessageBytes: number;
  /** the largest ZIP attachment fetched from a message over maxMessageBytes (ZIP_MAX_TOTAL_BYTES) */
  maxArchiveBytes?: number;
  batchSize: number;
  concurrency: number;
  /** how soon to look again at messages another poller held or that failed (the claim lease) */
  recheckMs: number;
}

export interface PollerStats {
  connects: number;
  drains: number;
  processed: number;
  failed: number;
  /** automatic mail without files (bounces, read receipts, auto-replies) */
  ignored: number;
  moved: number;
  errors: number;
  /** bytes read from the IMAP server, over all sessions */
  bytesReceived: number;
}

/** Exponential backoff with +-20 % jitter: min, 2*min, 4*min, ... up to max. */
export function reconnectDelay(attempt: number, minMs: number, maxMs: number, random = Math.random): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class MailPoller extends EventEmitter {
  readonly stats: PollerStats = { connects: 0, drains: 0, processed: 0, failed: 0, ignored: 0, moved: 0, errors: 0, bytesReceived: 0 };
  private stopping = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private newMail = false;
  private lastUid = 0;
  /** messages left in the mailbox by the last drain (held by another poller, or failed) */
  private leftBehind = 0;
  private current: MailboxSession | undefined;
  private lastFailure: string | undefined;
  private stopSignal: () => void = () => {};
  private readonly stopped = new Promise<void>((r) => (this.stopSignal = r));

  constructor(
    private readonly open: () => Promise<MailboxSession>,
    private readonly intake: MailIntake,
    private readonly settings: PollerSettings,
    private readonly log: Logger,
  ) {
    super();
  }

  /** bytes read from the IMAP server so far, the open session included */
  receivedBytes(): number {
    return this.stats.bytesReceived + (this.current?.bytesReceived() ?? 0);
  }

  /** why the last connection attempt or session failed, while the poller is not connected (readiness) */
  problem(): string | undefined {
    return this.current ? undefined : this.lastFailure;
  }

  /** whether the session waits in IDLE for new mail */
  idling(): boolean {
    return this.current?.idling() ?? false;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /**
   * Finishes the batch in hand (for at most `graceMs`; then the connection is closed under it),
   * closes the connection and releases unfinished claims.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    this.stopSignal();
    if (this.running && !(await settledBefore(this.running, Date.now() + graceMs))) await this.current?.close().catch(() => {});
    await this.running;
    await this.intake.release();
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopping) {
      let session: MailboxSession | undefined;
      let failure: unknown;
      try {
        // a connection attempt may take long (an unreachable host): stop does not wait for it
        const opening = this.open();
        const opened = await Promise.race([opening, this.stopped.then(() => undefined)]);
        if (!opened) {
          opening
            .then(
              (s) => s.close(),
              () => {},
            )
            .catch(() => {});
          break;
        }
        session = opened;
        this.current = session;
        this.lastFailure = undefined;
        this.stats.connects++;
        this.log.info({ mailbox: session.mailbox, uidValidity: session.uidValidity, idle: session.idle }, 'mail poller connected');
        this.emit('connected', session);
        await this.runSession(session, () => (attempt = 0));
      } catch (err) {
        failure = err;
      } finally {
        if (session) {
          this.current = undefined;
          this.stats.bytesReceived += session.bytesReceived();
          await session.close().catch(() => {});
        }
      }
      if (failure && !this.stopping) {
        this.stats.errors++;
        this.lastFailure = (failure as Error).message;
        const delay = reconnectDelay(attempt++, this.settings.reconnectMinMs, this.settings.reconnectMaxMs);
        this.log.warn({ err: (failure as Error).message, retryInMs: delay }, 'mail poller lost its IMAP session; reconnecting');
        this.emit('disconnected', failure);
        await this.sleep(delay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async runSession(session: MailboxSession, healthy: () => void): Promise<void> {
    const sync = await this.intake.syncMailbox(session.uidValidity);
    if (sync.previous !== undefined) {
      this.log.warn({ mailbox: session.mailbox, from: sync.previous, to: session.uidValidity }, 'UIDVALIDITY changed: rescanning the whole mailbox');
    }
    this.lastUid = sync.lastUid;
    session.onNewMail(() => {
      this.newMail = true;
      this.wakeUp?.();
    });
    let closedReason: Error | undefined;
    void session.closed.then((e) => {
      closedReason = e;
      this.wakeUp?.();
    });
    let full = true;
    let nextPoll = 0;
    while (!this.stopping) {
      if (closedReason) throw closedReason;
      if (full || this.newMail) {
        const whole = full;
        full = false;
        this.newMail = false;
        if (whole) nextPoll = Date.now() + this.settings.pollIntervalMs;
        this.leftBehind = 0;
        await this.drain(session, whole);
        healthy();
        if (this.leftBehind) nextPoll = Math.min(nextPoll, Date.now() + this.settings.recheckMs);
        continue;
      }
      const quiet = session.quietFor();
      if (quiet >= this.settings.watchdogIntervalMs) {
        // a connection that stays quiet may be dead without either side knowing: ask
        await session.ping(this.settings.watchdogTimeoutMs);
        continue;
      }
      const wait = Math.max(0, Math.min(nextPoll - Date.now(), this.settings.watchdogIntervalMs - quiet));
      await this.sleep(wait);
      if (Date.now() >= nextPoll) full = true;
    }
  }

  /** Hands over every message in the mailbox (whole) or those above the last UID seen (new mail). */
  private async drain(session: MailboxSession, whole: boolean): Promise<void> {
    this.stats.drains++;
    const uids = await session.searchUids(whole ? undefined : this.lastUid);
    const topUid = Math.max(this.lastUid, uids[uids.length - 1] ?? 0);
    for (let i = 0; i < uids.length && !this.stopping; i += this.settings.batchSize) {
      const batch = uids.slice(i, i + this.settings.batchSize);
      this.leftBehind += await drainBatch(
        {
          session,
          intake: this.intake,
          settings: this.settings,
          stats: this.stats,
          log: this.log,
          stopping: () => this.stopping,
          topUid,
          onStaged: (m) => this.emit('message', m),
        },
        batch,
      );
      const top = batch[batch.length - 1];
      if (top > this.lastUid) {
        this.lastUid = top;
        await this.intake.advanceLastUid(session.uidValidity, top);
      }
    }
    this.emit('drained', { whole, seen: uids.length });
  }
}
