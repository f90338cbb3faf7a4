// The worker role's part of intake: the intake queue's worker (its table: intake/intake-queue.ts),
// given the processor. The reconciler and the retention run as periodic work (periodic-work.ts).
import type { RunningWorker } from '../queue/job-queues.ts';
import type { Container } from './container.ts';
import { IntakeProcessor } from '../intake/intake-processor.ts';
import { HAND_OFF_BYTES, StagedBytesCache } from '../intake/staged-bytes-cache.ts';
import { intakeQueue, QueuedIntakeScheduler } from '../intake/intake-queue.ts';
import { LocalRuns } from '../intake/local-runs.ts';

export async function startIntakeWorkers(c: Container): Promise<RunningWorker> {
  const { config } = c;
  const log = c.log.child({ role: 'worker' });
  c.pdfPool?.warm();
  // files received by this process go to its workers without a trip through the database
  const stagedBytes = new StagedBytesCache(HAND_OFF_BYTES);
  c.intake.handOffBytesTo(stagedBytes);
  const processor = new IntakeProcessor({
    db: c.db,
    repos: c.intakeRepos,
    outbox: c.outbox,
    documents: c.documents,
    invoices: c.invoices,
    events: c.events,
    cache: stagedBytes,
    rules: {
      windowMs: config.intakeMatchWindowMs,
      einvoice: config.intakeMatchEinvoice,
      subject: config.intakeMatchSubject,
      nameToken: config.intakeMatchNameToken,
      pdfText: config.intakeMatchPdfText,
    },
  });
  const running = c.jobs.startWorker(intakeQueue, { processor, log });
  // files this process received by SMTP: their intake step here, without a job, up to the
  // workers' concurrency at once (local-runs.ts); the rest, and what a run leaves, go to jobs
  const scheduler = new QueuedIntakeScheduler(c.jobs);
  const local = new LocalRuns({
    process: (ref, attempt) => processor.process(ref, attempt),
    enqueue: (ref) => scheduler.enqueue(ref),
    concurrency: config.intakeConcurrency,
    leaseMs: config.intakeLockMs,
    attempts: config.intakeAttempts,
    log,
  });
  c.intake.runHereWith(local);
  log.info({ concurrency: config.intakeConcurrency, prefix: c.jobs.prefix }, 'intake workers started');
  return {
    ...running,
    // the runs here end first (a file they leave goes to its job), then the jobs under way
    async close() {
      await local.close();
      await running.close();
    },
  };
}
