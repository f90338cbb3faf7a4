// What happens to a message the SMTP receiver committed: one job (its id the message's) hands
// it to the same pipeline as the import mailbox's messages, once per envelope recipient, each a
// claim of its own (transport smtp) keyed by the message's dedupe key and the recipient, so a job
// run twice (a retry, the reconciler) stages nothing twice. Delivered-To names the recipient, as
// an MTA's local delivery writes it, and routing reads it first.
import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import type { Logger } from '../../platform/logger.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import type { Queue } from '../../queue/job-queues.ts';
import { JOBS } from '../../queue/queue-catalog.ts';
import type { MailIntake } from './mail-intake.ts';
import type { MailRepositories } from './mail-repositories.ts';

export interface SmtpJobData {
  smtpMessageId: string;
}

/** Queues a committed message's job; the id makes it idempotent (the receiver and the reconciler both call it). */
export function enqueueSmtpMessage(queue: Queue, id: string, timeoutMs = 5000): Promise<unknown> {
  const data: SmtpJobData = { smtpMessageId: id };
  return withTimeout(queue.add(JOBS.mail.smtpMessage, data, { jobId: id }), timeoutMs, `the mail queue did not answer within ${timeoutMs} ms`);
}

export class SmtpDelivery {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<MailRepositories, 'smtp'>,
    private readonly intake: MailIntake,
    private readonly log: Logger,
  ) {}

  /** Hands the message to the pipeline; throws to be retried (nothing is staged twice). */
  async deliver(id: string): Promise<'processed' | 'gone' | 'done'> {
    const row = await this.repos.smtp.get(this.db, id);
    if (!row) return 'gone';
    if (row.processed_at) return 'done';
    const raw = await this.repos.smtp.raw(this.db, id);
    if (!raw) return 'gone';
    try {
      for (const rcpt of row.rcpt_to) await this.deliverTo(raw, row.dedupe_key, rcpt, row.verdict);
    } catch (err) {
      await this.repos.smtp.noteAttempt(this.db, id, (err as Error).message).catch(() => {});
      throw err;
    }
    await this.repos.smtp.markProcessed(this.db, id);
    this.log.info({ smtpMessage: id, recipients: row.rcpt_to.length }, 'smtp message processed');
    return 'processed';
  }

  private async deliverTo(raw: Buffer, dedupeKey: string, rcpt: string, verdict: SenderVerdict): Promise<void> {
    const source = Buffer.concat([Buffer.from(`Delivered-To: ${rcpt}\r\n`), raw]);
    const key = createHash('sha256').update(dedupeKey).update('\0').update(rcpt).digest('hex');
    const claim = await this.intake.claim({ uidvalidity: 0, uid: 0, key, size: source.length });
    if (claim.kind === 'staged') {
      // staged by an earlier run that died before it noted it done
      await this.intake.markMoved([claim.row.id], 0);
      return;
    }
    if (claim.kind === 'busy') throw new Error(`mail message ${claim.row.id} is being processed by another worker`);
    try {
      // the verdict our receiver computed; the message's own Authentication-Results are never read
      const planned = await this.intake.process(claim.row, claim.resumed, { kind: 'whole', source }, verdict);
      const staged = await this.intake.stageAll([planned]);
      if (!staged.length) throw new Error(`mail message ${claim.row.id} was taken over before it was staged`);
      await this.intake.markMoved([planned.result.id], 0);
    } catch (err) {
      await this.intake.fail(claim.row, err).catch(() => {});
      throw err;
    }
  }
}
