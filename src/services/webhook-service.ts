// Webhook endpoints of an account and mode: create, read, change, delete, rotate the secret, read
// the delivery log, redeliver an event, ping. Delivery itself lives in src/webhooks/.
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import { PING_EVENT, WEBHOOK_EVENT_TYPES, type DeliveryAttempt, type Webhook, type WebhookEventType } from '../domain/webhooks.ts';
import type { DeliveryRef } from '../repositories/webhook-event-repository.ts';
import type { WebhookPatch } from '../repositories/webhook-repository.ts';
import type { EventOutbox } from './event-outbox.ts';
import { checkWebhookUrl, type UrlPolicy } from './webhook-url.ts';
import type { WebhookSubscriptions } from './webhook-subscriptions.ts';

/** How long a replaced secret keeps signing beside the new one. */
const SECRET_OVERLAP_SECONDS = 24 * 3600;
const MAX_URL_LENGTH = 2000;

/** Queues deliveries (the webhook queue, behind an interface so services stay below it). */
export interface DeliveryScheduler {
  /** `again`: a redelivery, a new job beside any that ran before */
  enqueue(refs: DeliveryRef[], again?: boolean): Promise<void>;
}

export interface WebhookInput {
  url: string;
  events: string[];
}

/** `whsec_` + Base64 of 32 random bytes, as Standard Webhooks libraries expect. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function parseEvents(raw: unknown): WebhookEventType[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
  const types = [
    ...new Set(
      list
        .flatMap((t) => String(t).split(','))
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
  if (types.length === 0) throw DomainError.invalid('Field events must list at least one event type', 'events');
  const unknown = types.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length)
    throw DomainError.invalid(`Field events has unknown event types: ${unknown.join(', ')}; known: ${WEBHOOK_EVENT_TYPES.join(', ')}`, 'events');
  return types as WebhookEventType[];
}

interface WebhookServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'webhookEvents' | 'webhooks'>;
  outbox: EventOutbox;
  scheduler: DeliveryScheduler;
  policy: UrlPolicy;
  subscriptions: Pick<WebhookSubscriptions, 'changing'>;
}

export class WebhookService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'webhookEvents' | 'webhooks'>;
  private readonly outbox: EventOutbox;
  private readonly scheduler: DeliveryScheduler;
  private readonly policy: UrlPolicy;
  private readonly subscriptions: Pick<WebhookSubscriptions, 'changing'>;

  constructor(o: WebhookServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.outbox = o.outbox;
    this.scheduler = o.scheduler;
    this.policy = o.policy;
    this.subscriptions = o.subscriptions;
  }

  private async checkUrl(scope: Scope, url: string): Promise<string> {
    const trimmed = url.trim();
    if (trimmed.length > MAX_URL_LENGTH) throw DomainError.invalid(`Field url is longer than ${MAX_URL_LENGTH} characters`, 'url');
    await checkWebhookUrl(trimmed, scope.mode, this.policy);
    return trimmed;
  }

  /** The new endpoint and its secret, which is shown this once. */
  async create(scope: Scope, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
    const url = await this.checkUrl(scope, input.url);
    const secret = newSecret();
    const events = parseEvents(input.events);
    const webhook = await this.subscriptions.changing(scope, () => this.repos.webhooks.insert(this.db, scope, { id: newId('whk'), url, events, secret }));
    return { webhook, secret };
  }

  async get(scope: Scope, id: string): Promise<Webhook> {
    const webhook = await this.repos.webhooks.find(this.db, scope, id);
    if (!webhook) throw DomainError.notFound('webhook', id);
    return webhook;
  }

  list(scope: Scope, req: PageRequest): Promise<Page<Webhook>> {
    return this.repos.webhooks.page(this.db, scope, req);
  }

  async update(scope: Scope, id: string, input: { url?: string; events?: unknown; enabled?: boolean }): Promise<Webhook> {
    const patch: WebhookPatch = {
      url: input.url === undefined ? undefined : await this.checkUrl(scope, input.url),
      events: input.events === undefined ? undefined : parseEvents(input.events),
      enabled: input.enabled,
    };
    const webhook = await this.subscriptions.changing(scope, () => this.repos.webhooks.update(this.db, scope, id, patch));
    if (!webhook) throw DomainError.notFound('webhook', id);
    return webhook;
  }

  async delete(scope: Scope, id: string): Promise<void> {
    if (!(await this.subscriptions.changing(scope, () => this.repos.webhooks.remove(this.db, scope, id)))) throw DomainError.notFound('webhook', id);
  }

  /** A new secret, shown this once; the old one signs beside it for 24 hours. */
  async rotateSecret(scope: Scope, id: string): Promise<{ webhook: Webhook; secret: string }> {
    const secret = newSecret();
    if (!(await this.repos.webhooks.rotateSecret(this.db, scope, id, secret, SECRET_OVERLAP_SECONDS))) throw DomainError.notFound('webhook', id);
    return { webhook: await this.get(scope, id), secret };
  }

  async deliveries(scope: Scope, id: string, req: PageRequest): Promise<Page<DeliveryAttempt>> {
    await this.get(scope, id);
    return this.repos.webhookEvents.attempts(this.db, scope, id, req);
  }

  /** Sends the event again to every enabled endpoint it went to; the event id stays the same. */
  async redeliver(scope: Scope, eventId: string): Promise<{ type: string; deliveries: number }> {
    const type = await this.repos.webhookEvents.typeOf(this.db, scope, eventId);
    if (!type) throw DomainError.notFound('event', eventId);
    const refs = await this.repos.webhookEvents.resetDeliveries(this.db, scope, eventId);
    await this.scheduler.enqueue(refs, true);
    return { type, deliveries: refs.length };
  }

  /** A webhook.ping event for this endpoint only, through the outbox like every event. */
  async ping(scope: Scope, id: string): Promise<string> {
    const webhook = await this.get(scope, id);
    if (!webhook.enabled) throw DomainError.conflict('The webhook is disabled; enable it (PATCH enabled=true) before pinging it');
    const eventId = await this.outbox.write(this.db, scope, PING_EVENT, { resource: 'webhook', webhook }, id);
    this.outbox.committed();
    return eventId;
  }
}
