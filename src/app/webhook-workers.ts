// The worker role's part of webhooks: a BullMQ worker over the webhook queue (one delivery per
// job, through the handler table). The outbox sweep is periodic work (periodic-work.ts).
import type { RunningWorker } from '../queue/job-queues.ts';
import { JOBS } from '../queue/queue-catalog.ts';
import type { Container } from './container.ts';
import { deliveryHandler } from '../webhooks/delivery-handler.ts';
import { webhookBackoff } from '../webhooks/webhook-queue.ts';

export function startWebhookWorkers(c: Container): RunningWorker {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'webhooks' });
  const running = c.queues.startWorker('webhooks', {
    [JOBS.webhooks.deliver]: deliveryHandler({
      db: c.db, repos: c.repos, log, metrics: c.metrics.webhooks, policy: { allowPrivate: config.webhookAllowPrivate },
      timeoutMs: config.webhookTimeoutMs, retryWindowMs: config.webhookRetryWindowMs, disableAfterMs: config.webhookDisableAfterMs,
    }),
  }, {
    // deliveries mostly wait on the network: many at once per process
    concurrency: config.webhookConcurrency,
    // a delivery takes at most WEBHOOK_TIMEOUT_MS: a dead worker's jobs move on soon after
    lockMs: config.webhookTimeoutMs + 5000,
    backoff: webhookBackoff(config),
  });
  log.info({ concurrency: config.webhookConcurrency }, 'webhook workers started');
  return running;
}
