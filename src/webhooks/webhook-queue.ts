// The webhook queue in BullMQ, apart from the intake queue so that a slow endpoint never holds up
// intake: its name, job options, retry schedule and the scheduler the services use. A job is one
// event for one endpoint; its id makes queueing the same delivery twice (a dispatcher that
// crashed before its commit) a no-op.
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { randomToken } from '../domain/ids.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { DeliveryScheduler } from '../services/webhook-service.ts';
import { queuePrefix } from '../intake/queue/intake-queue.ts';

export const WEBHOOK_QUEUE = 'webhooks';
export const WEBHOOK_JOBS = { deliver: 'webhook.deliver' } as const;
export const WEBHOOK_BACKOFF = 'webhook';

export type WebhookConfig = Pick<Config, 'webhookBackoffMs' | 'webhookBackoffMaxMs' | 'webhookRetryWindowMs'>;

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
export function webhookJobOptions(config: WebhookConfig): JobsOptions {
  return {
    attempts: Math.ceil(config.webhookRetryWindowMs / (config.webhookBackoffMaxMs / 2)) + 32,
    backoff: { type: WEBHOOK_BACKOFF },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 86_400 },
  };
}

export function createWebhookQueue(config: Config, connection: Redis): Queue {
  return new Queue(WEBHOOK_QUEUE, { connection, prefix: queuePrefix(config), defaultJobOptions: webhookJobOptions(config) });
}

export class BullDeliveryScheduler implements DeliveryScheduler {
  constructor(private readonly queue: Queue) {}

  async enqueue(refs: DeliveryRef[], again = false): Promise<void> {
    if (refs.length === 0) return;
    await this.queue.addBulk(refs.map((ref) => ({
      name: WEBHOOK_JOBS.deliver,
      data: ref,
      opts: { jobId: `${ref.eventId}-${ref.webhookId}${again ? `-${randomToken(6)}` : ''}` },
    })));
  }
}
