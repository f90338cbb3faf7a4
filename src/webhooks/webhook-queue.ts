// The webhook queue, its one job and the scheduler the services use over it. A job is one event
// for one endpoint (delivery-handler.ts); its id makes queueing the same delivery twice (a
// dispatcher that crashed before its commit) a no-op. Apart from intake so that a slow endpoint
// never holds intake up.
import type { Config } from '../config/config.ts';
import { randomToken } from '../domain/ids.ts';
import { defineJob, defineQueue, type JobOptions } from '../queue/job-definition.ts';
import type { JobQueues } from '../queue/job-queues.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { DeliveryScheduler } from '../services/webhook-service.ts';
import { deliveryHandler, type DeliveryDeps } from './delivery-handler.ts';

export type WebhookConfig = Pick<Config, 'webhookBackoffMs' | 'webhookBackoffMaxMs' | 'webhookRetryWindowMs'>;

/** The custom backoff type of the delivery job (its strategy: webhookBackoff). */
const BACKOFF = 'webhook';

/**
 * Exponential from WEBHOOK_BACKOFF_MS, capped at WEBHOOK_BACKOFF_MAX_MS, with jitter (half to
 * all of the step) so that the endpoints' retries after an outage do not arrive together. The job
 * itself stops once its event is older than WEBHOOK_RETRY_WINDOW_MS (3 days).
 */
export function webhookBackoff(config: WebhookConfig, random: () => number = Math.random) {
  return (attemptsMade: number): number => {
    const step = Math.min(config.webhookBackoffMs * 2 ** Math.max(0, attemptsMade - 1), config.webhookBackoffMaxMs);
    return Math.round(step * (0.5 + random() / 2));
  };
}

/** Enough attempts for the window at the slowest pace; the window, not this count, ends the retries. */
export function webhookJobOptions(config: WebhookConfig): JobOptions {
  return {
    attempts: Math.ceil(config.webhookRetryWindowMs / (config.webhookBackoffMaxMs / 2)) + 32,
    backoff: { type: BACKOFF },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 86_400 },
  };
}

const webhookDeliver = defineJob<DeliveryRef, DeliveryDeps>({
  queue: 'webhooks',
  name: 'webhook.deliver',
  options: webhookJobOptions,
  handler: deliveryHandler,
});

export const webhookQueue = defineQueue<DeliveryDeps>({
  name: 'webhooks',
  worker: (config) => ({
    // deliveries mostly wait on the network: many at once per process
    concurrency: config.webhookConcurrency,
    // a delivery takes at most WEBHOOK_TIMEOUT_MS: a dead worker's jobs move on soon after
    lockMs: config.webhookTimeoutMs + 5000,
    backoff: webhookBackoff(config),
  }),
  jobs: [webhookDeliver],
});

export class QueuedDeliveryScheduler implements DeliveryScheduler {
  constructor(private readonly jobs: JobQueues) {}

  async enqueue(refs: DeliveryRef[], again = false): Promise<void> {
    await this.jobs.addMany(
      webhookDeliver,
      refs.map((ref) => ({ data: ref, id: `${ref.eventId}-${ref.webhookId}${again ? `-${randomToken(6)}` : ''}` })),
    );
  }
}
