// The one owner of BullMQ (as immich's job repository is): given every queue's table at start
// (job-definition.ts), it builds one Queue per table on the shared connection, adds jobs with
// their table's options, answers what the services ask of a job (its state, promote, remove,
// retry), declares the scheduled jobs, and runs a table's jobs in a Worker of its own connection,
// each by its handler. A table with a job lacking a handler stops the start before anything
// connects. Outside src/queue nothing sees a Queue, a Worker or a Job.
import { Queue, UnrecoverableError, Worker, type Job, type JobType } from 'bullmq';
import type { Config } from '../config/config.ts';
import type { Logger } from '../platform/logger.ts';
import { RepeatedWarnings } from '../platform/repeated-warnings.ts';
import { boardAdapters, type BoardOptions } from './board-adapters.ts';
import { checkQueues, FailedForGood, queuePrefix, type JobDefinition, type JobOptions, type JobRun, type QueueDefinition } from './job-definition.ts';
import { openRedis, type RedisClient } from './redis-connection.ts';

export type JobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'missing' | 'other';
const KNOWN: JobState[] = ['waiting', 'active', 'delayed', 'completed', 'failed'];
const DOWN = new Set(['reconnecting', 'close', 'end']);

/** A job the metrics saw finish. */
interface FinishedJob {
  name: string;
  processedOn?: number | null;
  finishedOn?: number | null;
}

/** A worker's finished jobs, for the metrics. */
interface JobEvents {
  readonly name: string;
  on(event: 'completed', listener: (job: FinishedJob) => void): unknown;
  on(event: 'failed', listener: (job: FinishedJob | undefined, err: Error) => void): unknown;
}

/** A queue's counts and oldest waiting job, read at scrape time by the metrics. */
export interface QueueStats {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  getJobs(types: 'waiting'[], start: number, end: number, asc: boolean): Promise<({ timestamp: number; processedOn?: number | null } | undefined)[]>;
}

export interface RunningWorker {
  events: JobEvents;
  isRunning(): boolean;
  close(): Promise<void>;
}

type AnyJob = JobDefinition<never, never>;
const runOf = <D>(job: Job): JobRun<D> => ({
  id: job.id,
  name: job.name,
  data: job.data as D,
  attemptsMade: job.attemptsMade,
  attempts: job.opts.attempts ?? 1,
});

export class JobQueues {
  private readonly queues = new Map<string, Queue>();
  private readonly jobs = new Map<string, { job: AnyJob; options: JobOptions }>();
  readonly prefix: string;
  private readonly warnings: RepeatedWarnings;
  /** Closed since it was last ready: between two tries ioredis reads 'connecting', which is no sign of Redis being back. */
  private lost = false;

  /** `redis`: the shared connection (commands wait while Redis is away: maxRetriesPerRequest null) */
  constructor(
    private readonly config: Config,
    private readonly redis: RedisClient,
    log: Logger,
    private readonly tables: readonly QueueDefinition<never>[],
  ) {
    checkQueues(tables);
    for (const t of tables) for (const job of t.jobs) this.jobs.set(job.name, { job: job as AnyJob, options: job.options(config) });
    this.prefix = queuePrefix(config);
    this.warnings = new RepeatedWarnings(log);
    redis.on('close', () => {
      this.lost = true;
    });
    redis.on('ready', () => {
      this.lost = false;
    });
  }

  get names(): string[] {
    return this.tables.map((t) => t.name);
  }

  /** BullMQ's Queue of a table, built on first use: for this module, and for tests that look inside. */
  bullQueue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      if (!this.tables.some((t) => t.name === name)) throw new Error(`No queue ${name}`);
      queue = new Queue(name, { connection: this.redis, prefix: this.prefix });
      // without a listener BullMQ prints every reconnect failure to the console
      queue.on('error', (err) => this.warnings.warn({ err: err.message, queue: name }, 'queue redis error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  private known(job: JobDefinition<never, never> | JobDefinition<any, any>): { queue: Queue; options: JobOptions } {
    const entry = this.jobs.get(job.name);
    if (!entry) throw new Error(`Job ${job.name} is in no queue table given to the queue module`);
    return { queue: this.bullQueue(job.queue), options: entry.options };
  }

  /** True while the shared connection is known to be down: a producer may fail at once instead of waiting. */
  connectionDown(): boolean {
    const { status } = this.redis as { status?: string };
    return this.lost || Boolean(status && DOWN.has(status));
  }

  /** Queues one job; an id makes it idempotent (a live job of that id is not added twice). */
  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async add<D>(job: JobDefinition<D, any>, data: D, opts: { id?: string } = {}): Promise<void> {
    const { queue, options } = this.known(job);
    await queue.add(job.name, data, { ...options, jobId: opts.id });
  }

  /** Several jobs of one kind in one MULTI: all or none. */
  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async addMany<D>(job: JobDefinition<D, any>, items: { data: D; id?: string }[]): Promise<void> {
    if (!items.length) return;
    const { queue, options } = this.known(job);
    await queue.addBulk(items.map(({ data, id }) => ({ name: job.name, data, opts: { ...options, jobId: id } })));
  }

  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async state(job: JobDefinition<any, any>, id: string): Promise<JobState> {
    const found = await this.known(job).queue.getJob(id);
    if (!found) return 'missing';
    const s = await found.getState();
    if (s === 'unknown') return 'missing';
    if (s === 'prioritized' || s === 'waiting-children') return 'waiting';
    return KNOWN.includes(s as JobState) ? (s as JobState) : 'other';
  }

  /** Runs a delayed job now; false when it was not delayed (any more). */
  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async promote(job: JobDefinition<any, any>, id: string): Promise<boolean> {
    const found = await this.known(job).queue.getJob(id);
    if (!found) return false;
    try {
      await found.promote();
      return true;
    } catch {
      return false; // not delayed (any more): it is running or done
    }
  }

  /** Drops a job unless a worker holds it. */
  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async remove(job: JobDefinition<any, any>, id: string): Promise<void> {
    await this.known(job).queue.remove(id);
  }

  /** A failed job runs again from its first attempt; false when there is none to retry. */
  // biome-ignore lint/suspicious/noExplicitAny: any job of any queue: its data type is checked where the job is defined and added
  async retryFailed(job: JobDefinition<any, any>, id: string): Promise<boolean> {
    const found = await this.known(job).queue.getJob(id);
    if (!found) return false;
    await found.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /** The Redis hash where each scheduled job's last finished run is kept (in the queue's hash slot). */
  private lastRunKey(queue: string): string {
    return `${this.prefix}:${queue}:last-run`;
  }

  private table<Deps>(name: string): QueueDefinition<Deps> {
    const t = this.tables.find((q) => q.name === name);
    if (!t) throw new Error(`No queue ${name}`);
    return t as unknown as QueueDefinition<Deps>;
  }

  /** Each scheduled job's interval from config (0: off). */
  intervals(queue: string): Record<string, number> {
    return Object.fromEntries(
      this.table(queue)
        .jobs.filter((j) => j.every)
        .map((j) => [j.name, j.every!(this.config)]),
    );
  }

  /** Declares a queue's job schedulers, each job every so many ms (0: its scheduler removed). */
  async schedule(queue: string): Promise<void> {
    const q = this.bullQueue(queue);
    for (const [name, ms] of Object.entries(this.intervals(queue))) {
      if (ms > 0) await q.upsertJobScheduler(name, { every: ms }, { name, opts: this.jobs.get(name)!.options });
      else await q.removeJobScheduler(name);
    }
  }

  /** Each scheduled job's last finished run and next run (Unix ms), read from Redis. */
  async scheduledRuns(queue: string): Promise<{ task: string; lastRun?: number; nextRun?: number }[]> {
    const [schedulers, last] = await Promise.all([this.bullQueue(queue).getJobSchedulers(0, -1, true), this.redis.hgetall(this.lastRunKey(queue))]);
    const next = new Map(schedulers.map((s) => [s.key, s.next ?? undefined]));
    return Object.keys(this.intervals(queue)).map((task) => ({ task, lastRun: last[task] ? Number(last[task]) : undefined, nextRun: next.get(task) }));
  }

  /** Every queue's counts, for the metrics. */
  stats(): QueueStats[] {
    return this.names.map((name) => {
      const q = this.bullQueue(name);
      return {
        name,
        getJobCounts: (...types: string[]) => q.getJobCounts(...(types as JobType[])),
        getJobs: async (types, start, end, asc) =>
          (await q.getJobs(types as JobType[], start, end, asc)).map((j) => j && { timestamp: j.timestamp, processedOn: j.processedOn }),
      };
    });
  }

  /** Every queue for Bull Board (the admin dashboard). */
  board(opts: BoardOptions) {
    return boardAdapters(
      this.names.map((n) => this.bullQueue(n)),
      opts,
    );
  }

  /** Runs a table's jobs in this process, each by its handler made from `deps`. */
  startWorker<Deps>(table: QueueDefinition<Deps>, deps: Deps): RunningWorker {
    checkQueues([table as unknown as QueueDefinition<never>]);
    const settings = table.worker(this.config);
    const handlers = new Map(table.jobs.map((j) => [j.name, j.handler(deps)]));
    const failedRules = table.jobs.filter((j) => j.failed).map((j) => [j.name, j.failed!(deps)] as const);
    const failed = new Map(failedRules);
    const scheduled = new Set(table.jobs.filter((j) => j.every).map((j) => j.name));
    const name = table.name;
    const connection = openRedis(this.config, { maxRetriesPerRequest: null });
    connection.on('error', (err) => this.warnings.warn({ err: err.message, queue: name }, 'worker redis connection error'));
    const worker = new Worker(
      name,
      async (job) => {
        const handler = handlers.get(job.name);
        if (!handler) throw new UnrecoverableError(`No handler for ${name} job ${job.name}`);
        try {
          const result = await handler(runOf<never>(job));
          if (scheduled.has(job.name)) await this.redis.hset(this.lastRunKey(name), job.name, String(Date.now()));
          return result;
        } catch (err) {
          throw err instanceof FailedForGood ? new UnrecoverableError(err.message) : err;
        }
      },
      {
        connection,
        prefix: this.prefix,
        concurrency: settings.concurrency,
        // BullMQ spreads these over its defaults: an undefined one would replace a default
        ...(settings.lockMs ? { lockDuration: settings.lockMs, stalledInterval: settings.lockMs } : {}),
        ...(settings.maxStalledCount === undefined ? {} : { maxStalledCount: settings.maxStalledCount }),
        ...(settings.backoff ? { settings: { backoffStrategy: settings.backoff } } : {}),
      },
    );
    worker.on('error', (err) => this.warnings.warn({ err: err.message, queue: name }, 'worker error'));
    worker.on('failed', (job, err) => {
      const rule = job && failed.get(job.name);
      if (!job || !rule) return;
      const run = runOf<never>(job);
      const forGood = err instanceof UnrecoverableError || err.name === 'UnrecoverableError';
      void Promise.resolve()
        .then(() => rule(run, err, { forGood, lastAttempt: forGood || run.attemptsMade >= run.attempts }))
        .catch((e) => this.warnings.warn({ err: (e as Error).message, queue: name, job: job.name }, 'a job failure rule failed'));
    });
    return {
      events: worker,
      isRunning: () => worker.isRunning(),
      async close() {
        await worker.close();
        connection.disconnect();
      },
    };
  }

  /** Closes every queue built (producers): the workers are closed by their roles. */
  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
