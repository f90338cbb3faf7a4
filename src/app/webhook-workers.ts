// The worker role's part of webhooks: a BullMQ worker over the webhook queue (one delivery per
// job, through the handler table). The outbox sweep is periodic work (periodic-work.ts).
import { UnrecoverableError, Worker } from 'bullmq';
import { openRedis } from '../platform/redis-connection.ts';
import type { Container } from './container.ts';
import { queuePrefix } from '../intake/queue/intake-queue.ts';
import { deliveryHandler } from '../webhooks/delivery-handler.ts';
import { WEBHOOK_JOBS, WEBHOOK_QUEUE, webhookBackoff } from '../webhooks/webhook-queue.ts';

export interface WebhookWorkers {
  worker: Worker;
  close(): Promise<void>;
}

export function startWebhookWorkers(c: Container): WebhookWorkers {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'webhooks' });
  const handlers: Record<string, (job: any) => Promise<unknown>> = {
    [WEBHOOK_JOBS.deliver]: deliveryHandler({
      db: c.db, log, metrics: c.metrics.webhooks, policy: { allowPrivate: config.webhookAllowPrivate },
      timeoutMs: config.webhookTimeoutMs, retryWindowMs: config.webhookRetryWindowMs, disableAfterMs: config.webhookDisableAfterMs,
    }),
  };
  const connection = openRedis(config, { maxRetriesPerRequest: null });
  connection.on('error', (err) => log.warn({ err: err.message }, 'webhook worker redis connection error'));
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job) => {
      const handler = handlers[job.name];
      if (!handler) throw new UnrecoverableError(`No handler for job ${job.name}`);
      return handler(job);
    },
    {
      connection,
      prefix: queuePrefix(config),
      // deliveries mostly wait on the network: many at once per process
      concurrency: config.webhookConcurrency,
      // a delivery takes at most WEBHOOK_TIMEOUT_MS: a dead worker's jobs move on soon after
      lockDuration: config.webhookTimeoutMs + 5000,
      stalledInterval: config.webhookTimeoutMs + 5000,
      settings: { backoffStrategy: webhookBackoff(config) },
    },
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'webhook worker error'));
  log.info({ concurrency: config.webhookConcurrency }, 'webhook workers started');
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
