// The one place that builds BullMQ's queues and workers. Every queue of queue-catalog.ts gets one
// Queue (producer side, on the shared connection); a role starts a queue's worker with a handler
// table that must name every job of that queue, checked before anything connects, so a job
// without a handler stops the start instead of failing its jobs later. A worker blocks on a
// connection of its own. Handlers see BullMQ's Job; UnrecoverableError ends a job without retries.
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config } from '../config/config.ts';
import type { Logger } from '../platform/logger.ts';
import { RepeatedWarnings } from '../platform/repeated-warnings.ts';
import { jobNames, jobOptions, queuePrefix, QUEUE_NAMES, type JobName, type QueueName } from './queue-catalog.ts';
import { openRedis, type RedisClient } from './redis-connection.ts';

export { UnrecoverableError };
export type { Job, Queue, Worker };

export type JobHandler = (job: Job) => Promise<unknown>;
/** A handler for every job name of queue Q. */
export type HandlerTable<Q extends QueueName> = Record<JobName<Q>, JobHandler>;

export interface WorkerSettings {
  concurrency: number;
  /** how long a job's lock lasts without renewal; also how often stalled jobs are looked for */
  lockMs?: number;
  maxStalledCount?: number;
  /** the strategy of the queue's custom backoff type (queue-catalog.ts BACKOFF) */
  backoff?: (attemptsMade: number, type?: string, err?: Error) => number;
}

export interface RunningWorker {
  worker: Worker;
  close(): Promise<void>;
}

/** Start-up check: a job name of `queue` without a handler is a programming error, refused before any job runs. */
export function checkHandlers(queue: QueueName, handlers: Partial<Record<string, JobHandler>>): void {
  const missing = jobNames(queue).filter((n) => typeof handlers[n] !== 'function');
  if (missing.length) throw new Error(`No handler for ${queue} job(s): ${missing.join(', ')}`);
}

export class JobQueues {
  private readonly queues = new Map<QueueName, Queue>();
  readonly prefix: string;
  private readonly warnings: RepeatedWarnings;

  /** `redis`: the shared connection (commands wait while Redis is away: maxRetriesPerRequest null) */
  constructor(private readonly config: Config, private readonly redis: RedisClient, log: Logger) {
    this.prefix = queuePrefix(config);
    this.warnings = new RepeatedWarnings(log);
  }

  /** The producer side of a queue, built on first use. */
  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.redis, prefix: this.prefix, defaultJobOptions: jobOptions(this.config)[name] });
      // without a listener BullMQ prints every reconnect failure to the console
      queue.on('error', (err) => this.warnings.warn({ err: err.message, queue: name }, 'queue redis error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** every queue, for the dashboard and the metrics */
  all(): Queue[] {
    return QUEUE_NAMES.map((name) => this.queue(name));
  }

  /** Runs `queue`'s jobs in this process, each by its handler; throws before connecting when one is missing. */
  startWorker<Q extends QueueName>(name: Q, handlers: HandlerTable<Q>, settings: WorkerSettings): RunningWorker {
    checkHandlers(name, handlers);
    const table: Partial<Record<string, JobHandler>> = handlers;
    const connection = openRedis(this.config, { maxRetriesPerRequest: null });
    connection.on('error', (err) => this.warnings.warn({ err: err.message, queue: name }, 'worker redis connection error'));
    const worker = new Worker(
      name,
      async (job) => {
        const handler = table[job.name];
        if (!handler) throw new UnrecoverableError(`No handler for ${name} job ${job.name}`);
        return handler(job);
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
    return {
      worker,
      async close() {
        await worker.close();
        connection.disconnect();
      },
    };
  }

  /** Declares `queue`'s job schedulers: each job name every so many ms (0: its scheduler removed). */
  async schedule<Q extends QueueName>(name: Q, every: Record<JobName<Q>, number>): Promise<void> {
    const queue = this.queue(name);
    for (const [job, ms] of Object.entries(every) as [string, number][]) {
      if (ms > 0) await queue.upsertJobScheduler(job, { every: ms }, { name: job });
      else await queue.removeJobScheduler(job);
    }
  }

  /** When each scheduled job of `queue` runs next (Unix ms). */
  async nextRuns(name: QueueName): Promise<Map<string, number | undefined>> {
    const schedulers = await this.queue(name).getJobSchedulers(0, -1, true);
    return new Map(schedulers.map((s) => [s.key, s.next ?? undefined]));
  }
}
