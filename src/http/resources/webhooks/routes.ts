// Webhook endpoints of the key's account and mode (docs/webhooks.md): CRUD, secret rotation, the
// delivery log, redelivery of an event, ping. A secret appears in an answer only when it is new.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import { Accepted, AttemptSchema, EventTypes, Params, WebhookSchema, WebhookWithSecret } from './schema.ts';
import { HAL, Id, PageQuery, commonErrors, listOf, security } from '../../schemas/common.ts';
import { PING_EVENT } from '../../../domain/webhooks.ts';
import { Type } from '../../schemas/typebox.ts';
import { baseUrl, scopeOf } from '../../request-context.ts';
import { envelope } from '../../hal.ts';
import { parsePageRequest } from '../../../domain/pagination.ts';
import { presentAttempt, presentWebhook } from './presenter.ts';

export const webhookRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = (req: Parameters<typeof baseUrl>[0]) => baseUrl(req, c.config.publicUrl);
    const tags = ['webhooks'];

    app.post(
      '/v2/webhooks',
      {
        schema: {
          tags,
          security,
          summary: "Add an endpoint for events of this key's mode; the answer carries its signing secret, once",
          description: 'Live-mode URLs must be https:// and may not resolve to loopback, private, link-local or metadata addresses.',
          body: Type.Object({ url: Type.String({ minLength: 1, maxLength: 2000 }), events: EventTypes }),
          response: { 201: WebhookWithSecret, ...commonErrors(415, 422) },
        },
      },
      async (req, reply) => {
        const { webhook, secret } = await c.webhooks.create(scopeOf(req), req.body);
        return reply
          .code(201)
          .type(HAL)
          .send({ ...presentWebhook(base(req), webhook), secret });
      },
    );

    app.get(
      '/v2/webhooks',
      {
        schema: {
          tags,
          security,
          summary: 'List endpoints, newest first',
          querystring: Type.Object(PageQuery),
          response: { 200: listOf('webhooks', WebhookSchema), ...commonErrors() },
        },
      },
      async (req, reply) => {
        const page = parsePageRequest(req.query);
        const result = await c.webhooks.list(scopeOf(req), page);
        return reply.type(HAL).send(envelope(base(req), '/v2/webhooks', 'webhooks', result, page.limit, presentWebhook));
      },
    );

    app.get(
      '/v2/webhooks/:webhook_id',
      {
        schema: { tags, security, summary: 'Get an endpoint', params: Params, response: { 200: WebhookSchema, ...commonErrors(404) } },
      },
      async (req, reply) => reply.type(HAL).send(presentWebhook(base(req), await c.webhooks.get(scopeOf(req), req.params.webhook_id))),
    );

    app.patch(
      '/v2/webhooks/:webhook_id',
      {
        schema: {
          tags,
          security,
          summary: 'Change the URL, the event types, or enable/disable it (enabling clears a disable for failures)',
          params: Params,
          body: Type.Object({
            url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
            events: Type.Optional(EventTypes),
            enabled: Type.Optional(Type.Boolean()),
          }),
          response: { 200: WebhookSchema, ...commonErrors(404, 415, 422) },
        },
      },
      async (req, reply) => reply.type(HAL).send(presentWebhook(base(req), await c.webhooks.update(scopeOf(req), req.params.webhook_id, req.body))),
    );

    app.delete(
      '/v2/webhooks/:webhook_id',
      {
        schema: {
          tags,
          security,
          summary: 'Delete an endpoint; its queued deliveries are dropped',
          params: Params,
          response: { 204: Type.Null(), ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        await c.webhooks.delete(scopeOf(req), req.params.webhook_id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/v2/webhooks/:webhook_id/secret',
      {
        schema: {
          tags,
          security,
          params: Params,
          response: { 201: WebhookWithSecret, ...commonErrors(404) },
          summary: 'Rotate the signing secret: the new one is in the answer, once; the old one keeps signing beside it for 24 hours',
        },
      },
      async (req, reply) => {
        const { webhook, secret } = await c.webhooks.rotateSecret(scopeOf(req), req.params.webhook_id);
        return reply
          .code(201)
          .type(HAL)
          .send({ ...presentWebhook(base(req), webhook), secret });
      },
    );

    app.get(
      '/v2/webhooks/:webhook_id/deliveries',
      {
        schema: {
          tags,
          security,
          params: Params,
          querystring: Type.Object(PageQuery),
          response: { 200: listOf('deliveries', AttemptSchema), ...commonErrors(404) },
          summary: 'Delivery attempts to this endpoint, newest first: time, status code, duration, the first 1 KB of the answer',
        },
      },
      async (req, reply) => {
        const page = parsePageRequest(req.query);
        const result = await c.webhooks.deliveries(scopeOf(req), req.params.webhook_id, page);
        return reply.type(HAL).send(envelope(base(req), `/v2/webhooks/${req.params.webhook_id}/deliveries`, 'deliveries', result, page.limit, presentAttempt));
      },
    );

    app.post(
      '/v2/webhooks/:webhook_id/ping',
      {
        schema: {
          tags,
          security,
          params: Params,
          summary: `Send a ${PING_EVENT} event to this endpoint`,
          response: { 202: Accepted, ...commonErrors(404, 409) },
        },
      },
      async (req, reply) => {
        const id = await c.webhooks.ping(scopeOf(req), req.params.webhook_id);
        return reply.code(202).type(HAL).send({ resource: 'event', id, type: PING_EVENT });
      },
    );

    app.post(
      '/v2/events/:event_id/redeliver',
      {
        schema: {
          tags,
          security,
          params: Type.Object({ event_id: Id('Event id (evt_..., the webhook-id header)') }),
          response: { 202: Accepted, ...commonErrors(404) },
          summary: 'Send an event again, with the same webhook-id, to every enabled endpoint it was meant for',
        },
      },
      async (req, reply) => {
        const { type, deliveries } = await c.webhooks.redeliver(scopeOf(req), req.params.event_id);
        return reply.code(202).type(HAL).send({ resource: 'event', id: req.params.event_id, type, deliveries });
      },
    );
  };
