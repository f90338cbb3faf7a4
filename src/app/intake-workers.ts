// The worker role: BullMQ workers over the intake queue, dispatching by job name through the
// handler table. The reconciler and the retention run as periodic work (periodic-work.ts).
import { UnrecoverableError, type RunningWorker } from '../queue/job-queues.ts';
import type { Container } from './container.ts';
import { IntakeProcessor, WaitingForInvoice } from '../intake/intake-processor.ts';
import { intakeReason } from '../domain/intake-reasons.ts';
import { StagedBytesCache } from '../intake/staged-bytes-cache.ts';
import { intakeBackoff, jobHandlers } from '../intake/queue/job-handlers.ts';

export async function startIntakeWorkers(c: Container): Promise<RunningWorker> {
  const { config } = c;
  const log = c.log.child({ role: 'worker' });
  c.pdfPool?.warm();
  // files received by this process go to its workers without a trip through the database
  const stagedBytes = new StagedBytesCache(64 * 1024 * 1024);
  c.intake.handOffBytesTo(stagedBytes);
  const processor = new IntakeProcessor(c.db, c.intakeRepos, c.outbox, c.documents, c.invoices, {
    windowMs: config.intakeMatchWindowMs, einvoice: config.intakeMatchEinvoice, subject: config.intakeMatchSubject, nameToken: config.intakeMatchNameToken, pdfText: config.intakeMatchPdfText,
  }, c.events, stagedBytes);
  const running = c.queues.startWorker('intake', jobHandlers({ processor, log }), {
    concurrency: config.intakeConcurrency,
    lockMs: config.intakeLockMs,
    // a job survives two lost locks (a crash, then a starved event loop) before BullMQ fails
    // it; even then the reconciler runs it again while its record is pending
    maxStalledCount: 2,
    backoff: intakeBackoff(config),
  });
  // Retries used up on a transient error: the record must still say why it stopped.
  running.worker.on('failed', (job, err) => {
    if (!job || err instanceof UnrecoverableError || err.name === 'UnrecoverableError') return;
    if (job.attemptsMade < (job.opts.attempts ?? 1)) return;
    // the error itself is for operators (logged), never the reason a person reads
    if (!(err instanceof WaitingForInvoice)) log.warn({ err, intakeId: job.data.intakeId, attempts: job.attemptsMade }, 'intake gave up on a file');
    const reason = err instanceof WaitingForInvoice ? err.finalReason : intakeReason('gave_up', { attempts: job.attemptsMade });
    processor.giveUp(job.data, reason).catch((e) => log.error({ err: e, intakeId: job.data.intakeId }, 'could not record an intake failure'));
  });

  log.info({ concurrency: config.intakeConcurrency, prefix: c.queues.prefix }, 'intake workers started');
  return running;
}
