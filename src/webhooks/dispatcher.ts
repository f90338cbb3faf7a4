// Moves committed outbox events to the webhook queue. Told after each commit that wrote events
// (soon()), and run at start-up and on a schedule by the worker role (sweep()), so that events
// and deliveries whose process died before it queued them are queued by another: nothing
// committed is lost.
import type { Database } from '../db/database.ts';
import type { Logger } from '../platform/logger.ts';
import { withTimeout } from '../platform/timeouts.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { DeliveryScheduler } from '../services/webhook-service.ts';

const BATCH = 500;
/** With Redis away an enqueue would wait for the reconnect; the sweep queues the deliveries later. */
const ENQUEUE_TIMEOUT_MS = 5000;

export class OutboxDispatcher {
  private running?: Promise<void>;
  private again = false;

  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'webhookEvents'>,
    private readonly scheduler: DeliveryScheduler,
    private readonly log: Logger,
  ) {}

  /** Dispatches now, or once more after the run in progress (which may have missed the newest). */
  soon(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain()
      .catch((err) => this.log.warn({ err }, 'webhook dispatch failed; the next sweep retries'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** The schedule's run: new events, then pending deliveries left unqueued for `staleMs`. */
  async sweep(staleMs: number): Promise<void> {
    await this.soon();
    try {
      let refs: DeliveryRef[];
      do {
        refs = await this.repos.webhookEvents.touchStale(this.db, staleMs, BATCH);
        await this.enqueue(refs);
        if (refs.length) this.log.info({ deliveries: refs.length }, 'stale webhook deliveries queued again');
      } while (refs.length === BATCH);
    } catch (err) {
      this.log.warn({ err }, 'webhook sweep failed; the next one retries');
    }
  }

  /** Resolves when no dispatch is running. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      while ((await this.once()) === BATCH);
    } while (this.again);
  }

  /**
   * One batch: claim and commit, then queue. Queued only after the commit, so a worker never
   * takes a job whose delivery it cannot see yet; a crash in between leaves the deliveries
   * pending, for the sweep.
   */
  private async once(): Promise<number> {
    const claimed = await this.db.transaction((tx) => this.repos.webhookEvents.claimUndispatched(tx, BATCH));
    await this.enqueue(claimed.deliveries);
    if (claimed.deliveries.length) this.log.debug({ events: claimed.events, deliveries: claimed.deliveries.length }, 'webhook events dispatched');
    return claimed.events;
  }

  private enqueue(refs: DeliveryRef[]): Promise<void> {
    return withTimeout(this.scheduler.enqueue(refs), ENQUEUE_TIMEOUT_MS, 'The webhook queue (Redis) did not answer');
  }
}
