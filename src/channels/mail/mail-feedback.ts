// Answers senders whose files could not be attached. A reply is owed per message once every file
// of it reached its final intake status (a file may wait hours for its invoice): then, if any
// failed, one reply lists them with their reasons. Replies to the same address are capped per
// hour across all pollers (the database counts them).
import type { Logger } from '../../platform/logger.ts';
import type { Database } from '../../db/database.ts';
import type { Scope } from '../../domain/scope.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import type { ReplyRow } from './mail-reply-repository.ts';
import type { MailRepositories } from './mail-repositories.ts';
import { composeReply, type ReplyMessage } from './reply-message.ts';
import { nextReplyAt, replyAllowed, REPLY_WINDOW_MS } from './reply-rate-limit.ts';

export interface ReplySender {
  send(message: ReplyMessage): Promise<void>;
  close(): void;
}

export interface FeedbackSettings {
  from: string;
  limitPerHour: number;
  intervalMs: number;
  /** how often to look at a message whose files wait for their invoice */
  waitingRecheckMs: number;
  /** pending replies older than this are given up (the intake match window has long ended) */
  expireAfterMs: number;
  maxSendAttempts?: number;
  /** told of each reply the limit suppressed; `first`: the first since a reply last went to that sender */
  onLimited?: (first: boolean) => void;
}

/** A message's file as it ended: its record, or for an unpacked ZIP archive its files' records; none when gone. */
export type ReadRecord = (scope: Scope, id: string) => Promise<ImportRecord[]>;

const FINAL = new Set(['attached', 'failed']);

interface MailFeedbackOptions {
  db: Database;
  repos: MailRepositories;
  readRecord: ReadRecord;
  sender: ReplySender;
  settings: FeedbackSettings;
  log: Logger;
}

export class MailFeedback {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  private readonly db: Database;
  private readonly repos: MailRepositories;
  private readonly readRecord: ReadRecord;
  private readonly sender: ReplySender;
  private readonly settings: FeedbackSettings;
  private readonly log: Logger;

  constructor(o: MailFeedbackOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.readRecord = o.readRecord;
    this.sender = o.sender;
    this.settings = o.settings;
    this.log = o.log;
  }

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.runOnce()
        .then(() => undefined)
        .catch((err) => this.log.error({ err }, 'mail feedback round failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.settings.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.settings.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.sender.close();
  }

  /** One round over the replies that are due. Returns how many were decided. */
  async runOnce(): Promise<number> {
    let decided = 0;
    for (const reply of await this.repos.replies.duePending(this.db, 100)) {
      try {
        if (await this.decide(reply)) decided++;
      } catch (err) {
        this.log.error({ err, mailMessage: reply.message_id }, 'mail reply decision failed');
        await this.repos.replies.postpone(this.db, reply.message_id, this.settings.intervalMs * 4);
      }
    }
    return decided;
  }

  private async decide(reply: ReplyRow): Promise<boolean> {
    const scope: Scope = { accountId: reply.account_id, mode: reply.mode };
    if (Date.now() - new Date(reply.created_at).getTime() > this.settings.expireAfterMs) {
      return this.repos.replies.settleReply(this.db, reply.message_id, 'pending', 'expired', 'the files never reached a final status');
    }
    const files = await this.repos.claims.files(this.db, reply.message_id);
    // a file from an archive is named as it was inside it
    const outcomes = (
      await Promise.all(
        files.map(async (f) => (await this.readRecord(scope, f.intake_id)).map((r) => ({ filename: r.archiveId ? r.filename : f.filename, r }))),
      )
    ).flat();
    const open = outcomes.filter(({ r }) => !FINAL.has(r.status));
    if (open.length) {
      // a file waiting for its invoice may wait for hours: look less often
      const waiting = open.some(({ r }) => r.status === 'waiting');
      await this.repos.replies.postpone(this.db, reply.message_id, waiting ? this.settings.waitingRecheckMs : this.settings.intervalMs);
      return false;
    }
    const problems = outcomes
      .filter(({ r }) => r.status === 'failed')
      .map(({ filename, r }) => ({ filename, reason: r.reason ?? 'could not be processed', code: r.reasonCode }));
    if (!problems.length) return this.repos.replies.settleReply(this.db, reply.message_id, 'pending', 'not_needed', null);

    let nextAt: Date | undefined;
    let first = false;
    const go = await this.db.transaction(async (tx) => {
      await this.repos.replies.lockRecipient(tx, reply.recipient);
      const sent = await this.repos.replies.recentSends(tx, reply.recipient, REPLY_WINDOW_MS);
      const now = new Date();
      if (!replyAllowed(sent, now, this.settings.limitPerHour)) {
        nextAt = nextReplyAt(sent, now, this.settings.limitPerHour);
        first = !(await this.repos.replies.limitAlreadyReached(tx, reply.recipient));
        await this.repos.replies.settleReply(tx, reply.message_id, 'pending', 'suppressed', `reply limit of ${this.settings.limitPerHour} per hour reached`);
        return false;
      }
      return this.repos.replies.settleReply(tx, reply.message_id, 'pending', 'sending', null);
    });
    if (!go) {
      // said once per sender (until a reply goes to it again); the problems stay failed records
      // in the account's list, and each suppressed reply is counted
      const fields = { mailMessage: reply.message_id, recipient: reply.recipient, limitPerHour: this.settings.limitPerHour, nextReplyPossibleAt: nextAt };
      if (first)
        this.log.warn(
          fields,
          "mail reply limit reached for a sender: further problems get no reply until the hour has passed (they stay in the account's imports)",
        );
      else this.log.debug(fields, 'mail reply suppressed: rate limit');
      this.settings.onLimited?.(first);
      return true;
    }
    const message = composeReply({
      from: this.settings.from,
      to: reply.recipient,
      originalSubject: reply.subject ?? undefined,
      originalMessageId: reply.in_reply_to ?? undefined,
      originalReferences: reply.refs ? reply.refs.split(' ').filter(Boolean) : [],
      problems,
      facts: reply.facts,
    });
    try {
      await this.sender.send(message);
      await this.repos.replies.settleReply(this.db, reply.message_id, 'sending', 'sent', null);
      this.log.info({ mailMessage: reply.message_id, recipient: reply.recipient, files: problems.length }, 'mail reply sent');
    } catch (err) {
      const attempts = reply.attempts + 1;
      if (attempts >= (this.settings.maxSendAttempts ?? 5)) {
        await this.repos.replies.settleReply(this.db, reply.message_id, 'sending', 'expired', `sending failed ${attempts} times: ${(err as Error).message}`);
      } else {
        await this.repos.replies.retryReply(this.db, reply.message_id, 60_000 * attempts, (err as Error).message);
      }
      this.log.warn({ err: (err as Error).message, mailMessage: reply.message_id }, 'mail reply could not be sent');
    }
    return true;
  }
}
