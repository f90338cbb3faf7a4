// The worker role's part of webhooks: the webhook queue's worker (its table: webhooks/webhook-queue.ts),
// given what a delivery needs. The outbox sweep is periodic work (periodic-work.ts).
import type { RunningWorker } from '../queue/job-queues.ts';
import type { Container } from './container.ts';
import { webhookQueue } from '../webhooks/webhook-queue.ts';

export function startWebhookWorkers(c: Container): RunningWorker {
  const { config } = c;
  const log = c.log.child({ role: 'worker', part: 'webhooks' });
  const running = c.jobs.startWorker(webhookQueue, {
    db: c.db,
    repos: c.repos,
    log,
    metrics: c.metrics.webhooks,
    policy: { allowPrivate: config.webhookAllowPrivate },
    timeoutMs: config.webhookTimeoutMs,
    retryWindowMs: config.webhookRetryWindowMs,
    disableAfterMs: config.webhookDisableAfterMs,
  });
  log.info({ concurrency: config.webhookConcurrency }, 'webhook workers started');
  return running;
}
