// The worker role's part of the SMTP receiver: a BullMQ worker over the mail queue, one job per
// committed message, handing it to the mail pipeline (the same MailIntake as the import mailbox,
// its claims marked transport smtp). The pipeline's modules (mailparser, nodemailer's parser) are
// loaded with the first message, so a worker that never sees one does not carry them.
import type { RunningWorker } from '../queue/job-queues.ts';
import { JOBS } from '../queue/queue-catalog.ts';
import type { Container } from './container.ts';
import type { SmtpDelivery, SmtpJobData } from '../channels/mail/smtp-delivery.ts';

/** The claims' "mailbox" of SMTP messages: no IMAP folder is called that. */
export const SMTP_MAILBOX = '<smtp>';

export function startSmtpWorkers(c: Container): RunningWorker & { release(): Promise<void> } {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'smtp' });
  let delivery: Promise<{ delivery: SmtpDelivery; release(): Promise<void> }> | undefined;
  const build = async () => {
    const [{ MailIntake }, { SmtpDelivery }, { addressesIn }] = await Promise.all([
      import('../channels/mail/mail-intake.ts'),
      import('../channels/mail/smtp-delivery.ts'),
      import('../channels/mail/recipient-routing.ts'),
    ]);
    const replyFrom = config.mailReplyFrom ?? config.importAddress;
    const intake = new MailIntake(c.db, c.mailRepos, c.intake, (a) => c.accounts.findByImportAddress(a), log, {
      mailbox: SMTP_MAILBOX,
      transport: 'smtp',
      leaseMs: config.mailClaimLeaseMs,
      // the replies are sent by the mail role's feedback, as for the import mailbox's messages
      replies: Boolean(config.smtpUrl),
      ownAddresses: [...addressesIn(replyFrom), config.importAddress],
      senderPolicy: (scope) => c.senderPolicies.get(scope),
    });
    return { delivery: new SmtpDelivery(c.db, c.mailRepos, intake, log), release: () => intake.release() };
  };
  const running = c.queues.startWorker('mail', {
    [JOBS.mail.smtpMessage]: async (job) => {
      delivery ??= build();
      return (await delivery).delivery.deliver((job.data as SmtpJobData).smtpMessageId);
    },
  }, { concurrency: config.mailConcurrency, lockMs: config.mailClaimLeaseMs });
  running.worker.on('failed', (job, err) => log.warn({ smtpMessage: job?.data?.smtpMessageId, attempts: job?.attemptsMade, err: err.message }, 'smtp message not processed this time; retried'));
  log.info({ concurrency: config.mailConcurrency }, 'smtp message workers started');
  return {
    ...running,
    async release() {
      if (delivery) await (await delivery).release();
    },
  };
}
