// Webhook deliveries (docs/webhooks.md).
import { Type } from '../typebox.ts';
import { flag, setting, whole } from '../setting-types.ts';

export const webhooks = Type.Object(
  {
    webhookAllowPrivate: setting(flag(), {
      env: 'WEBHOOK_ALLOW_PRIVATE',
      default: 'false',
      doc: 'true: http:// and loopback/private addresses are allowed for endpoints (development and tests only).',
    }),
    webhookTimeoutMs: setting(whole(100, 60_000), { env: 'WEBHOOK_TIMEOUT_MS', default: '10000', doc: 'A delivery not answered in this long has failed.' }),
    webhookConcurrency: setting(whole(1, 1000), { env: 'WEBHOOK_CONCURRENCY', default: '32', doc: 'Deliveries at once per worker process.' }),
    webhookBackoffMs: setting(whole(10), {
      env: 'WEBHOOK_BACKOFF_MS',
      default: '10000',
      doc: 'The first wait before a failed delivery is retried, doubled by each further one.',
    }),
    webhookBackoffMaxMs: setting(whole(10), { env: 'WEBHOOK_BACKOFF_MAX_MS', default: '7200000', doc: 'The longest wait between two tries.' }),
    webhookRetryWindowMs: setting(whole(1000), {
      env: 'WEBHOOK_RETRY_WINDOW_MS',
      default: '259200000',
      doc: 'A delivery is retried until its event is this old.',
    }),
    webhookDisableAfterMs: setting(whole(1000), {
      env: 'WEBHOOK_DISABLE_AFTER_MS',
      default: '259200000',
      doc: 'An endpoint whose deliveries all failed this long is disabled.',
    }),
    webhookDispatchIntervalMs: setting(whole(100), {
      env: 'WEBHOOK_DISPATCH_INTERVAL_MS',
      default: '5000',
      doc: "The worker role's sweep of the outbox (events are also queued right after their commit).",
    }),
    webhookRequeueAfterMs: setting(whole(100), {
      env: 'WEBHOOK_REQUEUE_AFTER_MS',
      default: '60000',
      doc: 'A pending delivery untouched this long is queued again by the sweep (its job may be lost).',
    }),
  },
  { title: 'Webhooks' },
);
