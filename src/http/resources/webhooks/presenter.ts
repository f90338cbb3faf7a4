// The webhook resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { DeliveryAttempt, Webhook } from '../../../domain/webhooks.ts';
import { HAL } from '../../schemas/common.ts';

export const presentWebhook = (base: string, w: Webhook) => ({
  resource: 'webhook' as const,
  id: w.id,
  url: w.url,
  events: w.events,
  enabled: w.enabled,
  failingSince: w.failingSince ? w.failingSince.toISOString() : null,
  disabledReason: w.disabledReason,
  createdAt: w.createdAt.toISOString(),
  _links: {
    self: { href: `${base}/v2/webhooks/${w.id}`, type: HAL } as const,
    deliveries: { href: `${base}/v2/webhooks/${w.id}/deliveries`, type: HAL } as const,
  },
});

export const presentAttempt = (_base: string, a: DeliveryAttempt) => ({
  resource: 'delivery' as const,
  id: a.id,
  event: a.eventId,
  type: a.eventType,
  attemptedAt: a.attemptedAt.toISOString(),
  statusCode: a.statusCode,
  durationMs: a.durationMs,
  response: a.response,
  error: a.error,
  success: a.success,
});
