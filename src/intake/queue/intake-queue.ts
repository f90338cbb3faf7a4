// The intake queue in BullMQ: its name, key prefix, job names and options, and the scheduler
// the domain uses. Jobs carry references only; their id is the intake id, which makes enqueueing
// (by a channel or by the reconciler) idempotent.
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { DomainError } from '../../domain/errors.ts';
import { withTimeout } from '../../platform/timeouts.ts';
import type { Config } from '../../config/config.ts';
import type { IntakeJobRef, IntakeJobState, IntakeScheduler } from '../intake-jobs.ts';

export const INTAKE_QUEUE = 'intake';

/** Every job name of the intake queue; job-handlers.ts must give each one a handler. */
export const INTAKE_JOBS = { process: 'intake.process' } as const;
export type IntakeJobName = (typeof INTAKE_JOBS)[keyof typeof INTAKE_JOBS];

/** The custom backoff type our workers implement (see job-handlers.ts). */
export const INTAKE_BACKOFF = 'intake';

/**
 * BullMQ's key prefix. Wrapped in a hash tag (`{ii}`) so that every key of a queue lands in one
 * Redis Cluster slot, as BullMQ requires there; a prefix that already has braces is kept.
 */
export function queuePrefix(config: Pick<Config, 'redisPrefix'>): string {
  return config.redisPrefix.includes('{') ? config.redisPrefix : `{${config.redisPrefix}}`;
}

export function intakeJobOptions(config: Config): JobsOptions {
  return {
    attempts: config.intakeAttempts,
    backoff: { type: INTAKE_BACKOFF },
    // completed jobs are only history (the record in the database is the truth): keep a little
    removeOnComplete: { age: 3600, count: 5000 },
    // failed jobs stay visible to ops for the configured retention
    removeOnFail: { age: config.intakeFailedRetentionDays * 86_400 },
  };
}

export function createIntakeQueue(config: Config, connection: Redis): Queue {
  return new Queue(INTAKE_QUEUE, { connection, prefix: queuePrefix(config), defaultJobOptions: intakeJobOptions(config) });
}

const DOWN = new Set(['reconnecting', 'close', 'end']);
const KNOWN: IntakeJobState[] = ['waiting', 'active', 'delayed', 'completed', 'failed'];

export class BullIntakeScheduler implements IntakeScheduler {
  /** @param enqueueTimeoutMs with Redis down, an enqueue would wait for the reconnect: a channel must get an answer */
  constructor(
    readonly queue: Queue,
    private readonly enqueueTimeoutMs = 5000,
  ) {}

  /** Rejects with DomainError 'unavailable' (HTTP 503) when Redis cannot take the job. */
  async enqueue(ref: IntakeJobRef): Promise<void> {
    const unavailable = (why: string) => DomainError.unavailable(`The intake queue (Redis) ${why}; the file was not accepted. Retry shortly`);
    // a connection known to be down fails at once instead of after the timeout
    const { status } = this.queue.opts.connection as { status?: string };
    if (status && DOWN.has(status)) throw unavailable('is not reachable (Connection is closed)');
    try {
      await withTimeout(this.queue.add(INTAKE_JOBS.process, ref, { jobId: ref.intakeId }), this.enqueueTimeoutMs, `did not answer within ${this.enqueueTimeoutMs} ms`);
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
