// Webhook endpoints of the key's account and mode (docs/webhooks.md): CRUD, secret rotation, the
// delivery log, redelivery of an event, ping. A secret appears in an answer only when it is new.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { parsePageRequest } from '../../domain/pagination.ts';
import { PING_EVENT, WEBHOOK_EVENT_TYPES, type DeliveryAttempt, type Webhook } from '../../domain/webhooks.ts';
import { envelope } from '../presenters.ts';
import { baseUrl, scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Id, Link, Nullable, PageQuery, security } from '../schemas/common.ts';
import { listOf } from '../schemas/resources.ts';

const Time = Type.String({ format: 'date-time' });
const EventTypes = Type.Array(Type.String({ enum: [...WEBHOOK_EVENT_TYPES] }), { minItems: 1, description: `Event types to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}` });
const webhookFields = {
  resource: Type.Literal('webhook'),
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean({ description: 'false when disabled by the account, or by the service after failing deliveries for 3 days in a row (see disabledReason)' }),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'Start of the current run of failed deliveries' })),
  disabledReason: Nullable(Type.String()),
  createdAt: Time,
  _links: Type.Object({ self: Link, deliveries: Link }),
};
export const WebhookSchema = Type.Object(webhookFields, { $id: 'Webhook' });
const WebhookWithSecret = Type.Object(
  { ...webhookFields, secret: Type.String({ description: 'whsec_ + Base64 of 32 bytes: shown only in this answer; keep it to verify signatures' }) },
  { $id: 'WebhookWithSecret' },
);
const AttemptSchema = Type.Object(
  {
    resource: Type.Literal('delivery'),
    id: Type.String(),
    event: Type.String({ description: 'The event id, sent as webhook-id' }),
    type: Type.String(),
    attemptedAt: Time,
    statusCode: Nullable(Type.Integer({ description: 'null when no HTTP answer came' })),
    durationMs: Type.Integer(),
    response: Nullable(Type.String({ description: 'The first 1 KB of the answer' })),
    error: Nullable(Type.String()),
    success: Type.Boolean(),
  },
  { $id: 'WebhookDelivery' },
);
const Accepted = Type.Object({ resource: Type.Literal('event'), id: Type.String(), type: Type.String(), deliveries: Type.Optional(Type.Integer()) });

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

const presentAttempt = (_base: string, a: DeliveryAttempt) => ({
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

const Params = Type.Object({ webhook_id: Id('Webhook id (whk_...)') });

export const webhookRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const base = (req: Parameters<typeof baseUrl>[0]) => baseUrl(req, c.config.publicUrl);
  const tags = ['webhooks'];

  app.post('/v2/webhooks', {
    schema: {
      tags, security, summary: 'Add an endpoint for events of this key\'s mode; the answer carries its signing secret, once',
      description: 'Live-mode URLs must be https:// and may not resolve to loopback, private, link-local or metadata addresses.',
      body: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2000 }), events: EventTypes }),
      response: { 201: WebhookWithSecret, ...commonErrors(415, 422) },
    },
  }, async (req, reply) => {
    const { webhook, secret } = await c.webhooks.create(scopeOf(req), req.body);
    return reply.code(201).type(HAL).send({ ...presentWebhook(base(req), webhook), secret });
  });

  app.get('/v2/webhooks', {
    schema: { tags, security, summary: 'List endpoints, newest first', querystring: Type.Object(PageQuery), response: { 200: listOf('webhooks', WebhookSchema), ...commonErrors() } },
  }, async (req, reply) => {
    const page = parsePageRequest(req.query);
    const result = await c.webhooks.list(scopeOf(req), page);
    return reply.type(HAL).send(envelope(base(req), '/v2/webhooks', 'webhooks', result, page.limit, presentWebhook));
  });

  app.get('/v2/webhooks/:webhook_id', {
    schema: { tags, security, summary: 'Get an endpoint', params: Params, response: { 200: WebhookSchema, ...commonErrors(404) } },
  }, async (req, reply) => reply.type(HAL).send(presentWebhook(base(req), await c.webhooks.get(scopeOf(req), req.params.webhook_id))));

  app.patch('/v2/webhooks/:webhook_id', {
    schema: {
      tags, security, summary: 'Change the URL, the event types, or enable/disable it (enabling clears a disable for failures)', params: Params,
      body: Type.Object({ url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })), events: Type.Optional(EventTypes), enabled: Type.Optional(Type.Boolean()) }),
      response: { 200: WebhookSchema, ...commonErrors(404, 415, 422) },
    },
  }, async (req, reply) => reply.type(HAL).send(presentWebhook(base(req), await c.webhooks.update(scopeOf(req), req.params.webhook_id, req.body))));

  app.delete('/v2/webhooks/:webhook_id', {
    schema: { tags, security, summary: 'Delete an endpoint; its queued deliveries are dropped', params: Params, response: { 204: Type.Null(), ...commonErrors(404) } },
  }, async (req, reply) => {
    await c.webhooks.delete(scopeOf(req), req.params.webhook_id);
    return reply.code(204).send(null);
  });

  app.post('/v2/webhooks/:webhook_id/secret', {
    schema: {
      tags, security, params: Params, response: { 201: WebhookWithSecret, ...commonErrors(404) },
      summary: 'Rotate the signing secret: the new one is in the answer, once; the old one keeps signing beside it for 24 hours',
    },
  }, async (req, reply) => {
    const { webhook, secret } = await c.webhooks.rotateSecret(scopeOf(req), req.params.webhook_id);
    return reply.code(201).type(HAL).send({ ...presentWebhook(base(req), webhook), secret });
  });

  app.get('/v2/webhooks/:webhook_id/deliveries', {
    schema: {
      tags, security, params: Params, querystring: Type.Object(PageQuery), response: { 200: listOf('deliveries', AttemptSchema), ...commonErrors(404) },
      summary: 'Delivery attempts to this endpoint, newest first: time, status code, duration, the first 1 KB of the answer',
    },
  }, async (req, reply) => {
    const page = parsePageRequest(req.query);
    const result = await c.webhooks.deliveries(scopeOf(req), req.params.webhook_id, page);
    return reply.type(HAL).send(envelope(base(req), `/v2/webhooks/${req.params.webhook_id}/deliveries`, 'deliveries', result, page.limit, presentAttempt));
  });

  app.post('/v2/webhooks/:webhook_id/ping', {
    schema: { tags, security, params: Params, summary: `Send a ${PING_EVENT} event to this endpoint`, response: { 202: Accepted, ...commonErrors(404, 409) } },
  }, async (req, reply) => {
    const id = await c.webhooks.ping(scopeOf(req), req.params.webhook_id);
    return reply.code(202).type(HAL).send({ resource: 'event', id, type: PING_EVENT });
  });

  app.post('/v2/events/:event_id/redeliver', {
    schema: {
      tags, security, params: Type.Object({ event_id: Id('Event id (evt_..., the webhook-id header)') }), response: { 202: Accepted, ...commonErrors(404) },
      summary: 'Send an event again, with the same webhook-id, to every enabled endpoint it was meant for',
    },
  }, async (req, reply) => {
    const { type, deliveries } = await c.webhooks.redeliver(scopeOf(req), req.params.event_id);
    return reply.code(202).type(HAL).send({ resource: 'event', id: req.params.event_id, type, deliveries });
  });
};
