// The intake step of a file run by the process that received it, without a BullMQ job: for files
// received by SMTP (IncomingFile.inProcess), whose 250 is answered once they are committed. A job
// costs the service's main thread an add, a fetch and a finish in Redis (about a tenth of its CPU
// a message on bench:smtp). The record is staged with a lease (intake_records.run_lease_until,
// INTAKE_LOCK_MS), so the reconciler queues no job for it meanwhile; a process that dies leaves the
// lease to run out, and the reconciler queues the file's job then. A run that does not end the file
// (it waits for its invoice, or the database failed) hands it to its job, which carries on as for
// any file: the run here is one try more, never one less. The processor is idempotent: a job that
// runs beside it (a lease outlived) attaches nothing twice.
import type { Logger } from '../platform/logger.ts';
import type { IntakeJobRef } from './intake-jobs.ts';
import { WaitingForInvoice, type Attempt, type ProcessOutcome } from './intake-processor.ts';

interface LocalRunsOptions {
  process(ref: IntakeJobRef, attempt: Attempt): Promise<ProcessOutcome>;
  /** the file's job, for a run that did not end the file */
  enqueue(ref: IntakeJobRef): Promise<void>;
  /** runs at once at most; past it the files get jobs */
  concurrency: number;
  /** the record's lease: INTAKE_LOCK_MS */
  leaseMs: number;
  /** the job's attempts (INTAKE_ATTEMPTS): the run here is a job's first attempt in all but its bookkeeping */
  attempts: number;
  log: Logger;
}

export class LocalRuns {
  readonly leaseMs: number;
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly o: LocalRunsOptions) {
    this.leaseMs = o.leaseMs;
  }

  /** Whether a file staged now would be run here (else it gets its job as any file). */
  hasRoom(): boolean {
    return !this.closed && this.running.size < this.o.concurrency;
  }

  /** Runs a staged file's intake step (its record has the lease); never rejects. */
  run(ref: IntakeJobRef): void {
    if (this.closed) {
      this.handOver(ref, undefined);
      return;
    }
    const run: Promise<void> = this.o
      .process(ref, { made: 0, max: this.o.attempts })
      .then(
        (outcome) => this.ended(ref, outcome),
        (err: Error) => this.handOver(ref, err),
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Stops starting runs (files staged from now on get jobs) and waits for those under way. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.running);
  }

  private ended(ref: IntakeJobRef, outcome: ProcessOutcome): void {
    const { log } = this.o;
    if (!log.isLevelEnabled(outcome.status === 'skipped' ? 'debug' : 'info')) return;
    const line = log.child({ intakeId: ref.intakeId, traceId: ref.traceId, inProcess: true });
    if (outcome.status === 'failed') line.info({ reason: outcome.reason }, 'intake failed');
    else if (outcome.status === 'attached')
      line.info({ invoiceId: outcome.invoiceId, documentId: outcome.documentId, changed: outcome.changed }, 'intake attached');
    else line.debug({ why: outcome.why }, 'intake skipped');
  }

  /** Not ended here: the file's job takes it from here (a job that cannot be queued is the reconciler's once the lease is over). */
  private async handOver(ref: IntakeJobRef, err: Error | undefined): Promise<void> {
    // a wait for the invoice is the normal path (its job waits on); anything else is said as a job's retry is
    if (err && !(err instanceof WaitingForInvoice))
      this.o.log.warn({ err: err.message, intakeId: ref.intakeId }, 'intake run in process failed; its job retries');
    try {
      await this.o.enqueue(ref);
      this.o.log.debug({ intakeId: ref.intakeId, why: err?.message ?? 'stopping' }, 'intake handed to its job');
    } catch (e) {
      this.o.log.warn(
        { intakeId: ref.intakeId, err: (e as Error).message },
        'intake not queued after its run here: the reconciler queues it once its lease is over',
      );
    }
  }
}
