// The intake queue, its one job and the scheduler the intake services use over it. A job is one
// received file through the pipeline; it carries references only, and its id is the intake id,
// which makes enqueueing (by a channel or by the reconciler) idempotent. A permanent failure ends
// the job at once; waiting for an invoice is a retry whose delay the backoff keeps inside the
// match window; a transient error is retried with a warn line, and retries used up on one are
// recorded on the file (the failure rule).
import type { Config } from '../config/config.ts';
import { DomainError } from '../domain/errors.ts';
import { intakeReason } from '../domain/intake-reasons.ts';
import type { Logger } from '../platform/logger.ts';
import { withTimeout } from '../platform/timeouts.ts';
import { defineJob, defineQueue, FailedForGood } from '../queue/job-definition.ts';
import type { JobQueues } from '../queue/job-queues.ts';
import type { IntakeJobRef, IntakeJobState, IntakeScheduler } from './intake-jobs.ts';
import { WaitingForInvoice, type IntakeProcessor } from './intake-processor.ts';

export interface IntakeJobDeps {
  processor: IntakeProcessor;
  log: Logger;
}

/** The custom backoff type of the intake job (its strategy: intakeBackoff). */
const BACKOFF = 'intake';

/**
 * Exponential from INTAKE_BACKOFF_MS, capped at INTAKE_BACKOFF_MAX_MS; a file waiting for its
 * invoice never sleeps past the end of its window, so it fails at the window's end, not later.
 */
export function intakeBackoff(config: Pick<Config, 'intakeBackoffMs' | 'intakeBackoffMaxMs'>, now: () => number = Date.now) {
  return (attemptsMade: number, _type?: string, err?: Error): number => {
    const delay = Math.min(config.intakeBackoffMs * 2 ** Math.max(0, attemptsMade - 1), config.intakeBackoffMaxMs);
    if (err instanceof WaitingForInvoice) return Math.max(1, Math.min(delay, err.until - now() + 50));
    return delay;
  };
}

const intakeProcess = defineJob<IntakeJobRef, IntakeJobDeps>({
  queue: 'intake',
  name: 'intake.process',
  options: (config) => ({
    attempts: config.intakeAttempts,
    backoff: { type: BACKOFF },
    // completed jobs are only history (the record in the database is the truth): keep a little
    removeOnComplete: { age: 3600, count: 5000 },
    // failed jobs stay visible to ops for the configured retention
    removeOnFail: { age: config.intakeFailedRetentionDays * 86_400 },
  }),
  handler:
    ({ processor, log }) =>
    async (job) => {
      const ref = job.data;
      const outcome = await processor.process(ref, { made: job.attemptsMade, max: job.attempts });
      // the job's child logger only for a line that is written: making one costs as much per file as the line
      const jlog = (level: 'info' | 'debug') =>
        log.isLevelEnabled(level) ? log.child({ intakeId: ref.intakeId, traceId: ref.traceId, jobId: job.id, attempt: job.attemptsMade + 1 }) : undefined;
      if (outcome.status === 'failed') {
        jlog('info')?.info({ reason: outcome.reason }, 'intake failed');
        throw new FailedForGood(outcome.reason);
      }
      if (outcome.status === 'attached')
        jlog('info')?.info({ invoiceId: outcome.invoiceId, documentId: outcome.documentId, changed: outcome.changed }, 'intake attached');
      else jlog('debug')?.debug({ why: outcome.why }, 'intake skipped');
      return outcome;
    },
  // A transient error (the database away, a statement that failed) is retried, and said: a warn
  // line per attempt, so an operator sees a pipeline that keeps failing before it gives up (a
  // wait for the invoice is the normal path, not a failure). Retries used up: the record must
  // still say why it stopped.
  failed:
    ({ processor, log }) =>
    async (job, err, { forGood, lastAttempt }) => {
      if (forGood) return;
      if (!lastAttempt) {
        if (!(err instanceof WaitingForInvoice))
          log.warn(
            { err: err.message, code: (err as NodeJS.ErrnoException).code, intakeId: job.data.intakeId, attempt: job.attemptsMade, attempts: job.attempts },
            'intake job failed; retried',
          );
        return;
      }
      // the error itself is for operators (logged), never the reason a person reads
      if (!(err instanceof WaitingForInvoice)) log.warn({ err, intakeId: job.data.intakeId, attempts: job.attemptsMade }, 'intake gave up on a file');
      const reason = err instanceof WaitingForInvoice ? err.finalReason : intakeReason('gave_up', { attempts: job.attemptsMade });
      await processor.giveUp(job.data, reason).catch((e) => log.error({ err: e, intakeId: job.data.intakeId }, 'could not record an intake failure'));
    },
});

export const intakeQueue = defineQueue<IntakeJobDeps>({
  name: 'intake',
  worker: (config) => ({
    concurrency: config.intakeConcurrency,
    lockMs: config.intakeLockMs,
    // a job survives two lost locks (a crash, then a starved event loop) before BullMQ fails
    // it; even then the reconciler runs it again while its record is pending
    maxStalledCount: 2,
    backoff: intakeBackoff(config),
  }),
  jobs: [intakeProcess],
});

/** The IntakeScheduler over the intake queue. */
export class QueuedIntakeScheduler implements IntakeScheduler {
  /** @param enqueueTimeoutMs with Redis down, an enqueue would wait for the reconnect: a channel must get an answer */
  constructor(
    private readonly jobs: JobQueues,
    private readonly enqueueTimeoutMs = 5000,
  ) {}

  /** Rejects with DomainError 'unavailable' (HTTP 503) when Redis cannot take the job. */
  enqueue(ref: IntakeJobRef): Promise<void> {
    return this.adding(() => this.jobs.add(intakeProcess, ref, { id: ref.intakeId }));
  }

  /** The jobs of a staging group in one MULTI; rejects as enqueue() does. */
  enqueueMany(refs: IntakeJobRef[]): Promise<void> {
    return this.adding(() =>
      this.jobs.addMany(
        intakeProcess,
        refs.map((ref) => ({ data: ref, id: ref.intakeId })),
      ),
    );
  }

  private async adding(add: () => Promise<unknown>): Promise<void> {
    const unavailable = (why: string) => DomainError.unavailable(`The intake queue (Redis) ${why}; the file was not accepted. Retry shortly`);
    // a connection known to be down fails at once instead of after the timeout
    if (this.jobs.connectionDown()) throw unavailable('is not reachable (Connection is closed)');
    try {
      await withTimeout(add(), this.enqueueTimeoutMs, `did not answer within ${this.enqueueTimeoutMs} ms`);
    } catch (err) {
      throw unavailable((err as Error).message);
    }
  }

  state(intakeId: string): Promise<IntakeJobState> {
    return this.jobs.state(intakeProcess, intakeId);
  }

  promote(intakeId: string): Promise<boolean> {
    return this.jobs.promote(intakeProcess, intakeId);
  }

  async cancel(intakeId: string): Promise<void> {
    await this.jobs.remove(intakeProcess, intakeId); // not removed when locked by a worker: the processor then skips the discarded record
  }

  async restore(ref: IntakeJobRef, state: IntakeJobState): Promise<void> {
    if (state === 'failed' && (await this.jobs.retryFailed(intakeProcess, ref.intakeId))) return;
    if (state === 'completed') await this.jobs.remove(intakeProcess, ref.intakeId);
    await this.enqueue(ref);
  }
}
