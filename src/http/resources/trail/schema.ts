// The trail entry resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Nullable, PageQuery } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';

export const TrailEntrySchema = Type.Object(
  {
    resource: Type.Literal('trail_entry'),
    id: Type.String(),
    at: Type.String({ description: 'When, ISO 8601 UTC' }),
    mode: Nullable(Type.String({ enum: ['live', 'test'], description: 'null: a change to the whole account (people, two-step sign-in, disabled)' })),
    actor: Type.Object({
      kind: Type.String({ enum: ['person', 'api_key', 'upload_key', 'operator'] }),
      id: Nullable(Type.String({ description: "The person's or the upload key's id" })),
      label: Type.String({ description: "The person's e-mail, the key's name, or operator" }),
    }),
    address: Nullable(Type.String({ description: 'The client address the change came from' })),
    action: Type.String({ description: 'thing.verb: api_key.rotated, user.invited, import.discarded, ...' }),
    target: Nullable(Type.String()),
    detail: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'TrailEntry' },
);

export const TrailQuery = {
  ...PageQuery,
  action: Type.Optional(Type.String({ description: 'An action (user.invited) or its family (user)' })),
  actor: Type.Optional(Type.String({ description: 'person, api_key, upload_key or operator' })),
  since: Type.Optional(Type.String({ description: 'From this date or time (inclusive)' })),
  until: Type.Optional(Type.String({ description: 'Up to this date (the whole day) or time' })),
  format: Type.Optional(Type.String({ enum: ['json', 'csv'], description: 'csv: every entry of the filter (at most 10000) as text/csv' })),
};
