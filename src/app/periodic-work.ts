// Periodic work, once per installation whatever the number of processes: each task is a BullMQ
// job scheduler (upsertJobScheduler) on the `periodic` queue, and one worker of the worker role
// runs each of its jobs. Every worker process declares the schedulers at start and again every
// DECLARE_EVERY_MS (an upsert of an unchanged schedule keeps its next slot; after a FLUSHALL it
// brings the schedule back, and a new schedule's first job runs at once: the reconciler then
// finds the staged files whose jobs Redis lost).
import type { Config } from '../config/config.ts';
import { settledBefore } from '../platform/timeouts.ts';
import type { Container } from './container.ts';
import { IntakeReconciler } from '../intake/reconciler.ts';
import { BullIntakeScheduler } from '../intake/queue/intake-queue.ts';
import { enqueueSmtpMessage } from '../channels/mail/smtp-delivery.ts';
import type { HandlerTable, JobHandler, JobQueues } from '../queue/job-queues.ts';
import type { JobName } from '../queue/queue-catalog.ts';
import type { RedisClient } from '../queue/redis-connection.ts';

const DECLARE_EVERY_MS = 30_000;
/** an SMTP message unprocessed this long after its commit gets its job again (a queued one is not doubled) */
const SMTP_RECONCILE_AFTER_MS = 30_000;

export type PeriodicTaskName = JobName<'periodic'>;

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
    'mail.smtp-reconcile': config.reconcileIntervalMs,
    'trail.purge': config.purgeIntervalMs,
  };
}

/** The Redis hash where each task's last finished run is kept (in the queue's hash slot). */
const lastRunKey = (queues: JobQueues) => `${queues.prefix}:periodic:last-run`;

/** Each task's last and next run (Unix ms), for /metrics; read from Redis. */
export async function periodicSchedule(queues: JobQueues, redis: RedisClient, config: Config): Promise<{ task: string; lastRun?: number; nextRun?: number }[]> {
  const [next, last] = await Promise.all([queues.nextRuns('periodic'), redis.hgetall(lastRunKey(queues))]);
  return Object.keys(periodicIntervals(config)).map((task) => ({ task, lastRun: last[task] ? Number(last[task]) : undefined, nextRun: next.get(task) }));
}

export interface PeriodicWork {
  close(): Promise<void>;
}

export async function startPeriodicWork(c: Container): Promise<PeriodicWork> {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'periodic' });
  const reconciler = new IntakeReconciler(c.db, c.intakeRepos, new BullIntakeScheduler(c.intakeQueue), log.child({ part: 'reconciler' }));
  // each task timed, logged, and its finish written where /metrics reads it
  const task = (run: () => Promise<unknown>): JobHandler => async (job) => {
    const started = Date.now();
    const result = await run();
    await c.redis.hset(lastRunKey(c.queues), job.name, String(Date.now()));
    log.info({ task: job.name, jobId: job.id, ms: Date.now() - started, result: typeof result === 'object' ? undefined : result }, 'periodic task done');
    return result ?? null;
  };
  const handlers: HandlerTable<'periodic'> = {
    'intake.reconcile': task(async () => {
      const result = await reconciler.run();
      c.metrics.intake.requeued(result.restored);
      return result;
    }),
    'intake.retention': task(() => c.intakeRepos.intake.dropFailedContent(c.db, config.intakeFailedRetentionDays)),
    'test-data.purge': task(() => c.maintenance.purgeTestData()),
    'idempotency.purge': task(() => c.idempotency.purgeExpired()),
    'sessions.purge': task(() => c.users.purgeIdleSessions()),
    'mail-claims.purge': task(async () => (await c.mailRepos.claims.purgeMoved(c.db, config.mailRetentionDays)) + (await c.mailRepos.smtp.purgeProcessed(c.db, config.mailRetentionDays))),
    'webhooks.sweep': task(() => c.dispatcher.sweep(config.webhookRequeueAfterMs)),
    'statistics.analyze': task(() => c.maintenance.refreshStatistics()),
    // trail entries past TRAIL_RETENTION_DAYS (10 years by default)
    'trail.purge': task(() => c.trail.purgeExpired()),
    // SMTP messages committed but not processed a while later (their job lost with Redis, or never queued)
    'mail.smtp-reconcile': task(async () => {
      const ids = await c.mailRepos.smtp.unprocessed(c.db, SMTP_RECONCILE_AFTER_MS, 1000);
      for (const id of ids) await enqueueSmtpMessage(c.queues.queue('mail'), id);
      return ids.length;
    }),
  };
  const intervals = periodicIntervals(config);
  const redeclare = () => c.queues.schedule('periodic', intervals).catch((err) => log.warn({ err: err.message }, 'periodic schedules not declared; trying again'));
  // with Redis away the declaration waits for it: start-up waits two seconds at most, not for ever
  await settledBefore(redeclare(), Date.now() + 2000);
  const timer = setInterval(redeclare, DECLARE_EVERY_MS);
  timer.unref();

  const running = c.queues.startWorker('periodic', handlers, { concurrency: 2 });
  running.worker.on('failed', (job, err) => log.error({ task: job?.name, err }, 'periodic task failed; its next run tries again'));
  c.metrics.queues.observeWorker(running.worker);
  log.info({ intervals }, 'periodic work scheduled');
  return {
    async close() {
      clearInterval(timer);
      await running.close();
      await reconciler.idle();
    },
  };
}
