// The intake queue's handler table (queue/job-queues.ts checks it at start-up), and how a
// handler's outcome becomes a BullMQ result: permanent failures are UnrecoverableError (never retried), waiting is a retry
// whose delay the backoff below keeps inside the match window.
import { UnrecoverableError, type HandlerTable } from '../../queue/job-queues.ts';
import { JOBS } from '../../queue/queue-catalog.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Config } from '../../config/config.ts';
import type { IntakeJobRef } from '../intake-jobs.ts';
import { WaitingForInvoice, type IntakeProcessor } from '../intake-processor.ts';

export interface HandlerDeps {
  processor: IntakeProcessor;
  log: Logger;
}

export function jobHandlers({ processor, log }: HandlerDeps): HandlerTable<'intake'> {
  return {
    [JOBS.intake.process]: async (job) => {
      const ref = job.data as IntakeJobRef;
      const outcome = await processor.process(ref, { made: job.attemptsMade, max: job.opts.attempts ?? 1 });
      // the job's child logger only for a line that is written: making one costs as much per file as the line
      const jlog = (level: 'info' | 'debug') => (log.isLevelEnabled(level) ? log.child({ intakeId: ref.intakeId, traceId: ref.traceId, jobId: job.id, attempt: job.attemptsMade + 1 }) : undefined);
      if (outcome.status === 'failed') {
        jlog('info')?.info({ reason: outcome.reason }, 'intake failed');
        throw new UnrecoverableError(outcome.reason);
      }
      if (outcome.status === 'attached') jlog('info')?.info({ invoiceId: outcome.invoiceId, documentId: outcome.documentId, changed: outcome.changed }, 'intake attached');
      else jlog('debug')?.debug({ why: outcome.why }, 'intake skipped');
      return outcome;
    },
  };
}

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
