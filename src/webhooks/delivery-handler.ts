// One delivery attempt of one event to one endpoint, as a job of the webhook queue: sign, POST,
// log the attempt, then settle: delivered; failed for good (endpoint disabled, or the event older
// than the retry window); or thrown, so that BullMQ retries it after the backoff.
import { FailedForGood, type JobRun } from '../queue/job-definition.ts';
import type { Database } from '../db/database.ts';
import { newId } from '../domain/ids.ts';
import type { Scope } from '../domain/scope.ts';
import type { Logger } from '../platform/logger.ts';
import type { WebhookMetrics } from '../ops/metrics.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { UrlPolicy } from '../services/webhook-url.ts';
import { postWebhook } from './http-delivery.ts';
import { signatureHeaders } from './signature.ts';

export interface DeliveryDeps {
  db: Database;
  repos: Pick<Repositories, 'webhookEvents' | 'webhooks'>;
  log: Logger;
  metrics: WebhookMetrics;
  policy: UrlPolicy;
  timeoutMs: number;
  retryWindowMs: number;
  disableAfterMs: number;
  now?: () => number;
}

export type DeliveryOutcome = 'delivered' | 'skipped' | 'retried' | 'failed';

export function deliveryHandler(deps: DeliveryDeps) {
  const { db, log, metrics, policy } = deps;
  const { webhookEvents: events, webhooks } = deps.repos;
  const now = deps.now ?? Date.now;
  return async (job: JobRun<DeliveryRef>): Promise<DeliveryOutcome> => {
    const ref = job.data;
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    const task = await events.task(db, ref);
    // gone (endpoint deleted) or settled already (a second job for one delivery)
    if (task?.state !== 'pending') return 'skipped';
    if (!task.enabled) {
      await events.setState(db, ref, 'failed');
      return 'skipped';
    }
    const secrets = await webhooks.secrets(db, scope, ref.webhookId);
    if (!secrets) return 'skipped';
    const headers = signatureHeaders([secrets.current, ...(secrets.previous ? [secrets.previous] : [])], ref.eventId, task.body, now());
    const result = await postWebhook(task.url, ref.mode, headers, task.body, policy, deps.timeoutMs);
    await events.insertAttempt(db, scope, { id: newId('dlv'), webhookId: ref.webhookId, eventId: ref.eventId, eventType: task.type, ...result });
    const jlog = log.child({ eventId: ref.eventId, webhookId: ref.webhookId, attempt: job.attemptsMade + 1 });
    if (result.success) {
      await events.setState(db, ref, 'delivered');
      await webhooks.recordSuccess(db, scope, ref.webhookId);
      metrics.delivery('delivered', result.durationMs / 1000);
      jlog.debug({ statusCode: result.statusCode, ms: result.durationMs }, 'webhook delivered');
      return 'delivered';
    }
    const why = result.error ?? `HTTP ${result.statusCode}`;
    const [n, unit] =
      deps.disableAfterMs >= 3_600_000 ? [Math.round(deps.disableAfterMs / 3_600_000), 'hour'] : [Math.round(deps.disableAfterMs / 1000), 'second'];
    const span = `${n} ${unit}${n === 1 ? '' : 's'}`;
    const reason = `Every delivery failed for ${span}; the last one: ${why}`;
    const enabled = await webhooks.recordFailure(db, scope, ref.webhookId, deps.disableAfterMs, reason);
    if (!enabled || now() - task.createdAt.getTime() >= deps.retryWindowMs) {
      await events.setState(db, ref, 'failed');
      metrics.delivery('failed', result.durationMs / 1000);
      jlog.info({ why, enabled }, enabled ? 'webhook delivery given up: retry window over' : 'webhook endpoint disabled after failing too long');
      throw new FailedForGood(why);
    }
    await events.setState(db, ref, 'pending'); // touched: the sweep leaves it to its retries
    metrics.delivery('retried', result.durationMs / 1000);
    jlog.debug({ why }, 'webhook delivery failed; will retry');
    throw new Error(why);
  };
}
