// The webhook resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Id, Link, Nullable } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks.ts';

const Time = Type.String({ format: 'date-time' });

export const EventTypes = Type.Array(Type.String({ enum: [...WEBHOOK_EVENT_TYPES] }), {
  minItems: 1,
  description: `Event types to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
});

const webhookFields = {
  resource: Type.Literal('webhook'),
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean({
    description: 'false when disabled by the account, or by the service after failing deliveries for 3 days in a row (see disabledReason)',
  }),
  failingSince: Nullable(Type.String({ format: 'date-time', description: 'Start of the current run of failed deliveries' })),
  disabledReason: Nullable(Type.String()),
  createdAt: Time,
  _links: Type.Object({ self: Link, deliveries: Link }),
};

export const WebhookSchema = Type.Object(webhookFields, { $id: 'Webhook' });

export const WebhookWithSecret = Type.Object(
  { ...webhookFields, secret: Type.String({ description: 'whsec_ + Base64 of 32 bytes: shown only in this answer; keep it to verify signatures' }) },
  { $id: 'WebhookWithSecret' },
);

export const AttemptSchema = Type.Object(
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

export const Accepted = Type.Object({ resource: Type.Literal('event'), id: Type.String(), type: Type.String(), deliveries: Type.Optional(Type.Integer()) });

export const Params = Type.Object({ webhook_id: Id('Webhook id (whk_...)') });
