// The webhook queue's retry schedule and the scheduler the services use (the queue is declared
// in queue/queue-catalog.ts). A job is one event for one endpoint; its id makes queueing the same
// delivery twice (a dispatcher that crashed before its commit) a no-op.
import { randomToken } from '../domain/ids.ts';
import type { Queue } from '../queue/job-queues.ts';
import { JOBS, type WebhookConfig } from '../queue/queue-catalog.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { DeliveryScheduler } from '../services/webhook-service.ts';

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

export class BullDeliveryScheduler implements DeliveryScheduler {
  constructor(private readonly queue: Queue) {}

  async enqueue(refs: DeliveryRef[], again = false): Promise<void> {
    if (refs.length === 0) return;
    await this.queue.addBulk(refs.map((ref) => ({
      name: JOBS.webhooks.deliver,
      data: ref,
      opts: { jobId: `${ref.eventId}-${ref.webhookId}${again ? `-${randomToken(6)}` : ''}` },
    })));
  }
}
