// What a job is, said once per job beside its handler: a queue's table (defineQueue) names each
// job, its data type, its options, its handler and what a failure does, and the queue module
// (job-queues.ts) is given every table at start. Nothing here is BullMQ's: a job's owner never
// sees a Queue, a Worker or a Job, only a JobRun, and throws FailedForGood to end a job at once.
import type { Config } from '../config/config.ts';

/** One run of a job, as its handler sees it. */
export interface JobRun<D> {
  readonly id?: string;
  readonly name: string;
  readonly data: D;
  /** attempts made before this one */
  readonly attemptsMade: number;
  /** attempts allowed in all */
  readonly attempts: number;
}

/** A failure that retrying cannot mend: the job fails at once, without its retries. */
export class FailedForGood extends Error {
  override readonly name = 'FailedForGood';
}

type KeepJobs = { age: number; count?: number } | { age?: number; count: number };

export interface JobOptions {
  attempts?: number;
  /** exponential from `delay`, or a custom type whose strategy the queue's worker settings give */
  backoff?: { type: string; delay?: number };
  /** how long finished jobs stay visible (seconds and/or a count) */
  removeOnComplete?: KeepJobs;
  removeOnFail?: KeepJobs;
}

/** How a failure came: for good (FailedForGood), or a transient one and whether retries are used up. */
interface FailureKind {
  forGood: boolean;
  lastAttempt: boolean;
}

export interface JobDefinition<D, Deps> {
  /** the queue whose table lists this job */
  queue: string;
  name: string;
  options: (config: Config) => JobOptions;
  /** made once per worker from the queue's deps */
  handler: (deps: Deps) => (job: JobRun<D>) => Promise<unknown>;
  /** the failure rule: what a failed attempt does beyond BullMQ's retry (the job's data is all it has) */
  failed?: (deps: Deps) => (job: JobRun<D>, err: Error, kind: FailureKind) => void | Promise<void>;
  /** a scheduled job: run every so many ms, once per installation (0: not scheduled) */
  every?: (config: Config) => number;
}

interface WorkerSettings {
  concurrency: number;
  /** how long a job's lock lasts without renewal; also how often stalled jobs are looked for */
  lockMs?: number;
  maxStalledCount?: number;
  /** the strategy of the custom backoff type the queue's jobs name */
  backoff?: (attemptsMade: number, type?: string, err?: Error) => number;
}

export interface QueueDefinition<Deps> {
  name: string;
  worker: (config: Config) => WorkerSettings;
  jobs: readonly JobDefinition<never, Deps>[];
}

/** A job of a queue table; its data type D is what producers must hand it. */
export function defineJob<D, Deps>(job: JobDefinition<D, Deps>): JobDefinition<D, Deps> {
  return job;
}

/** A queue's table: its worker settings and its jobs, each with its handler. */
export function defineQueue<Deps>(queue: {
  name: string;
  worker: QueueDefinition<Deps>['worker'];
  // biome-ignore lint/suspicious/noExplicitAny: a queue's jobs each have their own data type, checked where each is defined
  jobs: readonly JobDefinition<any, Deps>[];
}): QueueDefinition<Deps> {
  return queue as QueueDefinition<Deps>;
}

/**
 * Start-up check of the tables: every job has a handler and one queue, and no name is used twice.
 * A job without a handler is a programming error, refused before anything connects.
 */
export function checkQueues(queues: readonly QueueDefinition<never>[]): void {
  const seen = new Set<string>();
  for (const q of queues) {
    if (seen.has(`queue:${q.name}`)) throw new Error(`Queue ${q.name} is declared twice`);
    seen.add(`queue:${q.name}`);
    const missing = q.jobs.filter((j) => typeof j.handler !== 'function').map((j) => j.name);
    if (missing.length) throw new Error(`No handler for ${q.name} job(s): ${missing.join(', ')}`);
    for (const j of q.jobs) {
      if (j.queue !== q.name) throw new Error(`Job ${j.name} names queue ${j.queue} but is listed in ${q.name}'s table`);
      if (seen.has(j.name)) throw new Error(`Job name ${j.name} is used twice`);
      seen.add(j.name);
    }
  }
}

/**
 * BullMQ's key prefix. Wrapped in a hash tag (`{ii}`) so that every key of a queue lands in one
 * Redis Cluster slot, as BullMQ requires there; a prefix that already has braces is kept.
 */
export function queuePrefix(config: Pick<Config, 'redisPrefix'>): string {
  return config.redisPrefix.includes('{') ? config.redisPrefix : `{${config.redisPrefix}}`;
}
