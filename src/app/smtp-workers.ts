// The worker role's part of the SMTP receiver: the mail queue's worker (its table:
// channels/mail/smtp-queue.ts), handing each committed message to the mail pipeline (the same
// MailIntake as the import mailbox, its claims marked transport smtp), and the same pipeline run
// at once for a message the smtp role of this very process committed (runCommitted): no job to
// add, fetch and finish, no row to read back. Its job is the fallback: queued when this process
// has too many of them in line, is stopping, or the run failed (retried with backoff);
// a process killed meanwhile leaves the message unprocessed, and the reconciler queues it. The
// pipeline's modules (mailparser, nodemailer's parser) are loaded with the first message, so a
// worker that never sees one does not carry them.
import type { RunningWorker } from '../queue/job-queues.ts';
import type { Container } from './container.ts';
import type { CommittedMessage, SmtpDelivery } from '../channels/mail/smtp-delivery.ts';
import type { PreClaim } from '../channels/mail/mail-message-rows.ts';
import { mailQueue } from '../channels/mail/smtp-queue.ts';
import { smtpRawHandoff } from './smtp-raw-handoff.ts';
import { Batcher, ok } from '../intake/batcher.ts';

/** The claims' "mailbox" of SMTP messages: no IMAP folder is called that. */
const SMTP_MAILBOX = '<smtp>';

export interface SmtpWorkers extends RunningWorker {
  release(): Promise<void>;
  /**
   * Runs a message this process just committed (or puts it in line), unless the line is full or
   * the workers are stopping: false then, and the caller queues its job. `failed`: the run threw
   * (nothing was staged twice) or was not started before the stop: queue its job, which retries.
   */
  runCommitted(message: CommittedMessage, raw: Buffer, failed: (err: Error) => void): boolean;
  /**
   * The claims for the commit of a message to make, for this process's run of it (no claim
   * statement of its own then); undefined before the pipeline is built (the first message) or
   * while stopping. A message that then goes to its job anyway is claimed by it again (the same
   * owner in this process; elsewhere once the claims' lease is over).
   */
  preClaims(message: { id: string; dedupeKey: string; rcptTo: string[]; raw: Buffer }): PreClaim[] | undefined;
}

/** the raw messages waiting in this process's line at most (the first one always fits) */
const LINE_BYTES = 64 * 1024 * 1024;

/** The smtp workers of each container, for its smtp role (same process). */
const running = new WeakMap<Container, SmtpWorkers>();

export function localSmtpWorkers(c: Container): SmtpWorkers | undefined {
  return running.get(c);
}

export function startSmtpWorkers(c: Container): SmtpWorkers {
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
    const intake = new MailIntake(
      { db: c.db, repos: c.mailRepos, intake: c.intake, findByImportAddress: (a) => c.accounts.findByImportAddress(a), log },
      {
        mailbox: SMTP_MAILBOX,
        transport: 'smtp',
        leaseMs: config.mailClaimLeaseMs,
        // the replies are sent by the mail role's feedback, as for the import mailbox's messages
        replies: Boolean(config.smtpUrl),
        ownAddresses: [...addressesIn(replyFrom), config.importAddress],
        senderPolicy: (scope) => c.senderPolicies.get(scope),
      },
    );
    // the messages whose runs end while one marking runs are marked by the next, together
    const processed = new Batcher<string, undefined>(
      async (ids) => {
        await c.mailRepos.smtp.markProcessed(c.db, ids);
        return ids.map(() => ok(undefined));
      },
      { maxItems: 256, maxBytes: Infinity },
      () => 0,
    );
    const markProcessed = async (id: string) => void (await processed.submit(id));
    return {
      delivery: new SmtpDelivery({ db: c.db, repos: c.mailRepos, intake, log, handedOff: smtpRawHandoff(c), markProcessed }),
      release: () => intake.release(),
    };
  };
  let built: SmtpDelivery | undefined;
  const get = async () => (built = (await (delivery ??= build())).delivery);
  const worker = c.jobs.startWorker(mailQueue, { delivery: get, log });
  // this process's own messages: SMTP_PROCESS_CONCURRENCY at once, the others waiting in memory up to
  // LINE_BYTES of raw messages (committed already: a crash loses no message, the reconciler has
  // them); a burst the pipeline cannot keep up with waits here rather than in jobs, which cost
  // more (measured on bench:smtp: a line of 64 sent a third of the messages to jobs)
  const local = new Set<Promise<unknown>>();
  const waiting: { start: () => void; bytes: number }[] = [];
  let waitingBytes = 0;
  let closing = false;
  const next = () => {
    while (local.size < config.smtpProcessConcurrency && waiting.length) {
      const first = waiting.shift()!;
      waitingBytes -= first.bytes;
      first.start();
    }
  };
  log.info({ concurrency: config.mailConcurrency, inProcess: config.smtpProcessConcurrency }, 'smtp message workers started');
  const workers: SmtpWorkers = {
    ...worker,
    async close() {
      closing = true;
      // those not started yet go to their jobs (another worker, or this one's next start)
      for (const w of waiting.splice(0)) w.start();
      waitingBytes = 0;
      await Promise.all([worker.close(), ...local]);
    },
    async release() {
      if (delivery) await (await delivery).release();
    },
    preClaims(m) {
      return built && !closing ? built.preClaims(m.id, m.dedupeKey, m.rcptTo, m.raw.length) : undefined;
    },
    runCommitted(message, raw, failed) {
      if (closing || (waiting.length && waitingBytes + raw.length > LINE_BYTES)) return false;
      waitingBytes += raw.length;
      waiting.push({
        bytes: raw.length,
        start: () => {
          if (closing) return failed(new Error('the workers are stopping'));
          const run: Promise<unknown> = get()
            .then((d) => d.deliverCommitted(message, raw))
            .catch((err: Error) => {
              log.warn({ smtpMessage: message.id, err: err.message }, 'smtp message not processed in this process: its job retries');
              failed(err);
            })
            .finally(() => {
              local.delete(run);
              next();
            });
          local.add(run);
        },
      });
      next();
      return true;
    },
  };
  running.set(c, workers);
  return workers;
}
