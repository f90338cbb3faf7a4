// The scheduler the domain uses over the intake queue (declared in queue/queue-catalog.ts). Jobs
// carry references only; their id is the intake id, which makes enqueueing (by a channel or by
// the reconciler) idempotent.
import { DomainError } from '../../domain/errors.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import type { Queue } from '../../queue/job-queues.ts';
import { JOBS } from '../../queue/queue-catalog.ts';
import type { IntakeJobRef, IntakeJobState, IntakeScheduler } from '../intake-jobs.ts';

const DOWN = new Set(['reconnecting', 'close', 'end']);
const KNOWN: IntakeJobState[] = ['waiting', 'active', 'delayed', 'completed', 'failed'];

export class BullIntakeScheduler implements IntakeScheduler {
  /** @param enqueueTimeoutMs with Redis down, an enqueue would wait for the reconnect: a channel must get an answer */
  constructor(
    readonly queue: Queue,
    private readonly enqueueTimeoutMs = 5000,
  ) {}

  /** Rejects with DomainError 'unavailable' (HTTP 503) when Redis cannot take the job. */
  enqueue(ref: IntakeJobRef): Promise<void> {
    return this.adding(() => this.queue.add(JOBS.intake.process, ref, { jobId: ref.intakeId }));
  }

  /** The jobs of a staging group in one MULTI (addBulk); rejects as enqueue() does. */
  enqueueMany(refs: IntakeJobRef[]): Promise<void> {
    return this.adding(() => this.queue.addBulk(refs.map((ref) => ({ name: JOBS.intake.process, data: ref, opts: { jobId: ref.intakeId } }))));
  }

  private async adding(add: () => Promise<unknown>): Promise<void> {
    const unavailable = (why: string) => DomainError.unavailable(`The intake queue (Redis) ${why}; the file was not accepted. Retry shortly`);
    // a connection known to be down fails at once instead of after the timeout
    const { status } = this.queue.opts.connection as { status?: string };
    if (status && DOWN.has(status)) throw unavailable('is not reachable (Connection is closed)');
    try {
      await withTimeout(add(), this.enqueueTimeoutMs, `did not answer within ${this.enqueueTimeoutMs} ms`);
    } catch (err) {
      throw unavailable((err as Error).message);
    }
  }

  async state(intakeId: string): Promise<IntakeJobState> {
    const job = await this.queue.getJob(intakeId);
    if (!job) return 'missing';
    const s = await job.getState();
    if (s === 'unknown') return 'missing';
    if (s === 'prioritized' || s === 'waiting-children') return 'waiting';
    return KNOWN.includes(s as IntakeJobState) ? (s as IntakeJobState) : 'other';
  }

  async promote(intakeId: string): Promise<boolean> {
    const job = await this.queue.getJob(intakeId);
    if (!job) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false; // not delayed (any more): it is running or done
    }
  }

  async cancel(intakeId: string): Promise<void> {
    await this.queue.remove(intakeId); // 0 when locked by a worker: the processor then skips the discarded record
  }

  async restore(ref: IntakeJobRef, state: IntakeJobState): Promise<void> {
    if (state === 'failed') {
      const job = await this.queue.getJob(ref.intakeId);
      if (job) return void (await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }));
    }
    if (state === 'completed') await this.queue.remove(ref.intakeId);
    await this.enqueue(ref);
  }
}
