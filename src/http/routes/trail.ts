// The trail (issue 44): GET /v2/account/trail for an owner's API key (its mode's entries and the
// whole account's), GET /admin/accounts/{id}/trail for operators (every entry, or one mode's).
// Newest first, paged like every list; `format=csv` gives the filter's entries as CSV instead.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { parsePageRequest, type PageRequest } from '../../domain/pagination.ts';
import type { TrailEntry } from '../../domain/trail.ts';
import type { TrailFilter } from '../../repositories/trail-repository.ts';
import { parseTrailQuery } from '../../services/trail-service.ts';
import { envelope } from '../presenters.ts';
import { baseUrl, scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Nullable, PageQuery, security } from '../schemas/common.ts';
import { listOf } from '../schemas/resources.ts';
import { trailCsv } from './trail-csv.ts';

const TrailEntrySchema = Type.Object({
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
}, { $id: 'TrailEntry' });

export const TrailQuery = {
  ...PageQuery,
  action: Type.Optional(Type.String({ description: 'An action (user.invited) or its family (user)' })),
  actor: Type.Optional(Type.String({ description: 'person, api_key, upload_key or operator' })),
  since: Type.Optional(Type.String({ description: 'From this date or time (inclusive)' })),
  until: Type.Optional(Type.String({ description: 'Up to this date (the whole day) or time' })),
  format: Type.Optional(Type.String({ enum: ['json', 'csv'], description: 'csv: every entry of the filter (at most 10000) as text/csv' })),
};

const present = (_base: string, e: TrailEntry) => ({ resource: 'trail_entry' as const, id: e.id, at: e.at, mode: e.mode, actor: e.actor, address: e.address, action: e.action, target: e.target, detail: e.detail });

/** One trail answer: a page in the list envelope, or the CSV. */
export async function sendTrail(c: Pick<HttpDeps, 'trail'>, reply: FastifyReply, base: string, path: string, filter: TrailFilter, query: Record<string, string | undefined>) {
  const narrowed = { ...filter, ...parseTrailQuery(query) };
  if (query.format === 'csv') {
    return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="trail.csv"').send(trailCsv(await c.trail.export(narrowed)));
  }
  const page: PageRequest = parsePageRequest(query);
  const links = { action: query.action, actor: query.actor, since: query.since, until: query.until, mode: query.mode };
  return reply.type(HAL).send(envelope(base, path, 'trail', await c.trail.page(narrowed, page), page.limit, present, links));
}

export const trailRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/v2/account/trail', {
    schema: {
      tags: ['account'], security, summary: "Who changed what: this mode's trail and the whole account's, newest first",
      querystring: Type.Object(TrailQuery), response: { 200: listOf('trail', TrailEntrySchema), ...commonErrors() },
    },
  }, async (req, reply) => {
    const scope = scopeOf(req);
    return sendTrail(c, reply, baseUrl(req, c.config.publicUrl), '/v2/account/trail', { accountId: scope.accountId, mode: scope.mode }, req.query);
  });
};

export const adminTrailRoute = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/admin/accounts/:id/trail', {
    schema: {
      tags: ['admin'], security: [{ adminAuth: [] }], summary: "The account's trail: who changed what, newest first",
      params: Type.Object({ id: Type.String({ maxLength: 36 }) }),
      querystring: Type.Object({ ...TrailQuery, mode: Type.Optional(Type.String({ enum: ['live', 'test'], description: "One mode's entries and the whole account's" })) }),
      response: { 200: listOf('trail', TrailEntrySchema), ...commonErrors(404) },
    },
  }, async (req, reply) => {
    await c.accounts.get(req.params.id); // 404 for an account that does not exist
    const mode = req.query.mode as 'live' | 'test' | undefined;
    return sendTrail(c, reply, `${req.protocol}://${req.host}`, `/admin/accounts/${encodeURIComponent(req.params.id)}/trail`, { accountId: req.params.id, mode }, req.query);
  });
};
