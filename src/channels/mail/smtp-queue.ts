// The mail queue and its one job: a message the SMTP receiver committed, through the mail pipeline
// (smtp-delivery.ts); the job id is the message's id, so the receiver and the reconciler may both
// queue it. The pipeline is built with the first message (deps.delivery), so a worker that never
// sees one does not load it.
import type { Logger } from '../../platform/logger.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import { defineJob, defineQueue } from '../../queue/job-definition.ts';
import type { JobQueues } from '../../queue/job-queues.ts';
import type { SmtpDelivery } from './smtp-delivery.ts';

interface SmtpJobData {
  smtpMessageId: string;
}

export interface SmtpJobDeps {
  delivery: () => Promise<SmtpDelivery>;
  log: Logger;
}

const smtpMessage = defineJob<SmtpJobData, SmtpJobDeps>({
  queue: 'mail',
  name: 'mail.smtp-message',
  // the database away: retried for about an hour (then the reconciler queues it again)
  options: () => ({
    attempts: 15,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 3600, count: 5000 },
    removeOnFail: { age: 7 * 86_400 },
  }),
  handler:
    ({ delivery }) =>
    async (job) =>
      (await delivery()).deliver(job.data.smtpMessageId),
  failed:
    ({ log }) =>
    (job, err) =>
      log.warn({ smtpMessage: job.data.smtpMessageId, attempts: job.attemptsMade, err: err.message }, 'smtp message not processed this time; retried'),
});

export const mailQueue = defineQueue<SmtpJobDeps>({
  name: 'mail',
  worker: (config) => ({ concurrency: config.mailConcurrency, lockMs: config.mailClaimLeaseMs }),
  jobs: [smtpMessage],
});

/** Queues a committed message's job; the id makes it idempotent (the receiver and the reconciler both call it). */
export function enqueueSmtpMessage(jobs: JobQueues, id: string, timeoutMs = 5000): Promise<unknown> {
  return withTimeout(jobs.add(smtpMessage, { smtpMessageId: id }, { id }), timeoutMs, `the mail queue did not answer within ${timeoutMs} ms`);
}
