// Periodic work, once per installation whatever the number of processes: each task is a BullMQ
// job scheduler (upsertJobScheduler) on the `periodic` queue, and one worker of the worker role
// runs each of its jobs. Every worker process declares the schedulers at start and again every
// DECLARE_EVERY_MS (an upsert of an unchanged schedule keeps its next slot; after a FLUSHALL it
// brings the schedule back, and a new schedule's first job runs at once: the reconciler then
// finds the staged files whose jobs Redis lost).
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { openRedis } from '../platform/redis-connection.ts';
import type { Config } from '../config/config.ts';
import type { Container } from './container.ts';
import { intakeRepository } from '../intake/intake-repository.ts';
import { IntakeReconciler } from '../intake/reconciler.ts';
import { BullIntakeScheduler, queuePrefix } from '../intake/queue/intake-queue.ts';
import { messageClaimRepository } from '../channels/mail/message-claim-repository.ts';

export const PERIODIC_QUEUE = 'periodic';
const DECLARE_EVERY_MS = 30_000;

export type PeriodicTaskName =
  | 'intake.reconcile' | 'intake.retention' | 'test-data.purge' | 'idempotency.purge'
  | 'sessions.purge' | 'mail-claims.purge' | 'webhooks.sweep' | 'statistics.analyze';

/** Every task and its interval from config (0: off, its scheduler is removed). */
export function periodicIntervals(config: Config): Record<PeriodicTaskName, number> {
  return {
    'intake.reconcile': config.reconcileIntervalMs,
    'intake.retention': config.purgeIntervalMs,
    'test-data.purge': config.purgeIntervalMs,
    'idempotency.purge': config.purgeIntervalMs,
    'sessions.purge': config.purgeIntervalMs,
    'mail-claims.purge': config.purgeIntervalMs,
    'webhooks.sweep': config.webhookDispatchIntervalMs,
    'statistics.analyze': config.analyzeIntervalMs,
  };
}

export function createPeriodicQueue(config: Config, connection: Redis): Queue {
  return new Queue(PERIODIC_QUEUE, {
    connection, prefix: queuePrefix(config),
    defaultJobOptions: { attempts: 1, removeOnComplete: { count: 200 }, removeOnFail: { count: 200 } },
  });
}

/** The Redis hash where each task's last finished run is kept (in the queue's hash slot). */
const lastRunKey = (config: Config) => `${queuePrefix(config)}:${PERIODIC_QUEUE}:last-run`;

/** Each task's last and next run (Unix ms), for /metrics; read from Redis. */
export async function periodicSchedule(queue: Queue, redis: Redis, config: Config): Promise<{ task: string; lastRun?: number; nextRun?: number }[]> {
  const [schedulers, last] = await Promise.all([queue.getJobSchedulers(0, -1, true), redis.hgetall(lastRunKey(config))]);
  const next = new Map(schedulers.map((s) => [s.key, s.next]));
  return Object.keys(periodicIntervals(config)).map((task) => ({ task, lastRun: last[task] ? Number(last[task]) : undefined, nextRun: next.get(task) ?? undefined }));
}

export interface PeriodicWork {
  close(): Promise<void>;
}

export async function startPeriodicWork(c: Container): Promise<PeriodicWork> {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'periodic' });
  const reconciler = new IntakeReconciler(c.db, new BullIntakeScheduler(c.intakeQueue), log.child({ part: 'reconciler' }));
  const tasks: Record<PeriodicTaskName, () => Promise<unknown>> = {
    'intake.reconcile': () => reconciler.run(),
    'intake.retention': () => intakeRepository.dropFailedContent(c.db, config.intakeFailedRetentionDays),
    'test-data.purge': () => c.maintenance.purgeTestData(),
    'idempotency.purge': () => c.idempotency.purgeExpired(),
    'sessions.purge': () => c.users.purgeIdleSessions(),
    'mail-claims.purge': () => messageClaimRepository.purgeMoved(c.db, config.mailRetentionDays),
    'webhooks.sweep': () => c.dispatcher.sweep(config.webhookRequeueAfterMs),
    'statistics.analyze': () => c.maintenance.refreshStatistics(),
  };
  const intervals = periodicIntervals(config);
  const declare = async () => {
    for (const [task, every] of Object.entries(intervals)) {
      if (every > 0) await c.periodicQueue.upsertJobScheduler(task, { every }, { name: task });
      else await c.periodicQueue.removeJobScheduler(task);
    }
  };
  const redeclare = () => declare().catch((err) => log.warn({ err: err.message }, 'periodic schedules not declared; trying again'));
  await redeclare();
  const timer = setInterval(redeclare, DECLARE_EVERY_MS);
  timer.unref();

  const connection = openRedis(config, { maxRetriesPerRequest: null });
  connection.on('error', (err) => log.warn({ err: err.message }, 'periodic worker redis connection error'));
  const worker = new Worker(
    PERIODIC_QUEUE,
    async (job) => {
      const run = tasks[job.name as PeriodicTaskName];
      if (!run) throw new UnrecoverableError(`No periodic task ${job.name}`);
      const started = Date.now();
      const result = await run();
      await c.redis.hset(lastRunKey(config), job.name, String(Date.now()));
      log.info({ task: job.name, jobId: job.id, ms: Date.now() - started, result: typeof result === 'object' ? undefined : result }, 'periodic task done');
      return result ?? null;
    },
    { connection, prefix: queuePrefix(config), concurrency: 2 },
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'periodic worker error'));
  worker.on('failed', (job, err) => log.error({ task: job?.name, err }, 'periodic task failed; its next run tries again'));
  c.metrics.queues.observeWorker(worker);
  log.info({ intervals }, 'periodic work scheduled');
  return {
    async close() {
      clearInterval(timer);
      await worker.close();
      await reconciler.idle();
      connection.disconnect();
    },
  };
}
