// Webhooks as the domain sees them: the event types a back-end can subscribe to, what each event
// is about, and an endpoint's record (never its secret, which only signing reads).
import type { ImportRecord } from './intake.ts';
import type { DocumentMeta, Invoice, Payment } from './models.ts';

export const WEBHOOK_EVENT_TYPES = [
  'import.received',
  'import.waiting',
  'import.attached',
  'import.failed',
  'import.held',
  'document.attached',
  'document.deleted',
  'invoice.paid',
  'payment.created',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by POST /v2/webhooks/{id}/ping, to that endpoint; nobody subscribes to it. */
export const PING_EVENT = 'webhook.ping';

/** The record an event reports, as the domain holds it; the HTTP edge presents it as the API does. */
export type EventSubject =
  | { resource: 'import'; record: ImportRecord }
  | { resource: 'document'; document: DocumentMeta }
  | { resource: 'invoice'; invoice: Invoice }
  | { resource: 'payment'; payment: Payment }
  | { resource: 'webhook'; webhook: Webhook };

/** Turns an event's subject into the `data` of its payload (the resource as GET shows it). */
export type EventPresenter = (subject: EventSubject) => unknown;

export interface Webhook {
  id: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  /** start of the current run of failed deliveries (null: the last one succeeded) */
  failingSince: Date | null;
  /** why the service disabled it (null when enabled, or disabled by the account) */
  disabledReason: string | null;
  createdAt: Date;
}

export interface DeliveryAttempt {
  id: string;
  eventId: string;
  eventType: string;
  attemptedAt: Date;
  /** null when no HTTP answer came (refused address, timeout, connection error) */
  statusCode: number | null;
  durationMs: number;
  /** the first 1 KB of the answer's body */
  response: string | null;
  error: string | null;
  success: boolean;
}
