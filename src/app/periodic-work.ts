// Periodic work, once per installation whatever the number of processes: the `periodic` queue's
// table below names each task, its interval from config and the service call it makes; the queue
// module declares each as a BullMQ job scheduler and records its last run. One worker of the
// worker role runs them. Every worker process declares the schedulers at start and again every
// DECLARE_EVERY_MS (an upsert of an unchanged schedule keeps its next slot; after a FLUSHALL it
// brings the schedule back, and a new schedule's first job runs at once: the reconciler then
// finds the staged files whose jobs Redis lost).
import type { Config } from '../config/config.ts';
import type { Logger } from '../platform/logger.ts';
import { settledBefore } from '../platform/timeouts.ts';
import { defineJob, defineQueue, type JobDefinition } from '../queue/job-definition.ts';
import { enqueueSmtpMessage } from '../channels/mail/smtp-queue.ts';
import type { Container } from './container.ts';

const DECLARE_EVERY_MS = 30_000;

export interface PeriodicDeps {
  c: Container;
  log: Logger;
}

/** A periodic task: every `every(config)` ms (0: off), `run` a call of a service; timed and logged. */
function task(name: string, every: (config: Config) => number, run: (c: Container) => Promise<unknown>): JobDefinition<unknown, PeriodicDeps> {
  return defineJob<unknown, PeriodicDeps>({
    queue: 'periodic',
    name,
    every,
    // a periodic task that fails waits for its next run
    options: () => ({ attempts: 1, removeOnComplete: { count: 200 }, removeOnFail: { count: 200 } }),
    handler:
      ({ c, log }) =>
      async (job) => {
        const started = Date.now();
        const result = await run(c);
        log.info({ task: job.name, jobId: job.id, ms: Date.now() - started, result: typeof result === 'object' ? undefined : result }, 'periodic task done');
        return result ?? null;
      },
    failed:
      ({ log }) =>
      (job, err) =>
        log.error({ task: job.name, err }, 'periodic task failed; its next run tries again'),
  });
}

const purge = (config: Config) => config.purgeIntervalMs;

export const periodicQueue = defineQueue<PeriodicDeps>({
  name: 'periodic',
  worker: () => ({ concurrency: 2 }),
  jobs: [
    task(
      'intake.reconcile',
      (config) => config.reconcileIntervalMs,
      async (c) => {
        const result = await c.reconciler.run();
        c.metrics.intake.requeued(result.restored);
        return result;
      },
    ),
    task('intake.retention', purge, (c) => c.intake.dropFailedContent(c.config.intakeFailedRetentionDays)),
    task('test-data.purge', purge, (c) => c.maintenance.purgeTestData()),
    task('idempotency.purge', purge, (c) => c.idempotency.purgeExpired()),
    task('sessions.purge', purge, (c) => c.users.purgeIdleSessions()),
    task('mail-claims.purge', purge, (c) => c.mailUpkeep.purge(c.config.mailRetentionDays)),
    task(
      'webhooks.sweep',
      (config) => config.webhookDispatchIntervalMs,
      (c) => c.dispatcher.sweep(c.config.webhookRequeueAfterMs),
    ),
    task(
      'statistics.analyze',
      (config) => config.analyzeIntervalMs,
      (c) => c.maintenance.refreshStatistics(),
    ),
    // SMTP messages committed but not processed a while later (their job lost with Redis, or never queued)
    task(
      'mail.smtp-reconcile',
      (config) => config.reconcileIntervalMs,
      async (c) => {
        const ids = await c.mailUpkeep.unprocessedSmtp(c.config.smtpReconcileAfterMs, 1000);
        for (const id of ids) await enqueueSmtpMessage(c.jobs, id);
        return ids.length;
      },
    ),
    // trail entries past TRAIL_RETENTION_DAYS (10 years by default)
    task('trail.purge', purge, (c) => c.trail.purgeExpired()),
    // document-store objects no row points at, once older than DOCUMENT_SWEEP_GRACE_HOURS
    task(
      'documents.sweep',
      (config) => config.documentSweepIntervalMs,
      (c) => c.documentSweep.run(),
    ),
  ],
});

export interface PeriodicWork {
  close(): Promise<void>;
}

export async function startPeriodicWork(c: Container): Promise<PeriodicWork> {
  const log = c.log.child({ role: 'worker', part: 'periodic' });
  const redeclare = () => c.jobs.schedule(periodicQueue.name).catch((err) => log.warn({ err: err.message }, 'periodic schedules not declared; trying again'));
  // with Redis away the declaration waits for it: start-up waits two seconds at most, not for ever
  await settledBefore(redeclare(), Date.now() + 2000);
  const timer = setInterval(redeclare, DECLARE_EVERY_MS);
  timer.unref();

  const running = c.jobs.startWorker(periodicQueue, { c, log });
  c.metrics.queues.observeWorker(running.events);
  log.info({ intervals: c.jobs.intervals(periodicQueue.name) }, 'periodic work scheduled');
  return {
    async close() {
      clearInterval(timer);
      await running.close();
      await c.reconciler.idle();
    },
  };
}
