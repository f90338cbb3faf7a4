// The trail (issue 44): GET /v2/account/trail for an owner's API key (its mode's entries and the
// whole account's), GET /admin/accounts/{id}/trail for operators (every entry, or one mode's).
// Newest first, paged like every list; `format=csv` gives the filter's entries as CSV instead.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { HttpDeps } from '../../http-deps.ts';
import type { TrailFilter } from '../../../repositories/trail-repository.ts';
import { HAL, commonErrors, listOf, security } from '../../schemas/common.ts';
import { TRAIL_ACTIONS } from '../../../domain/trail.ts';
import { TrailEntrySchema, TrailQuery } from './schema.ts';
import { Type } from '../../schemas/typebox.ts';
import { baseUrl, scopeOf } from '../../request-context.ts';
import { envelope } from '../../hal.ts';
import { parseTrailQuery } from '../../../services/trail-service.ts';
import { present, trailCsv } from './presenter.ts';
import { type PageRequest, parsePageRequest } from '../../../domain/pagination.ts';

/** One trail answer: a page in the list envelope, or the CSV. */
async function sendTrail(
  c: Pick<HttpDeps, 'trail'>,
  reply: FastifyReply,
  base: string,
  path: string,
  filter: TrailFilter,
  query: Record<string, string | undefined>,
) {
  const narrowed = { ...filter, ...parseTrailQuery(query) };
  if (query.format === 'csv') {
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="trail.csv"')
      .send(trailCsv(await c.trail.export(narrowed)));
  }
  const page: PageRequest = parsePageRequest(query);
  const links = { action: query.action, actor: query.actor, since: query.since, until: query.until, mode: query.mode };
  return reply.type(HAL).send(envelope(base, path, 'trail', await c.trail.page(narrowed, page), page.limit, present, links));
}

export const trailRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v2/account/trail',
      {
        schema: {
          tags: ['account'],
          security,
          summary: "Who changed what: this mode's trail and the whole account's, newest first",
          description: `Changes outside the per-file flow, each committed with the change it records: ${TRAIL_ACTIONS.join(', ')}. Each names who (actor kind person, api_key, upload_key or operator, and a label), when, from which address, what (target, detail; never a secret). Entries cannot be changed or deleted through the service and are kept TRAIL_RETENTION_DAYS (default ten years). Filter by action (or its family), actor, since, until; format=csv for a spreadsheet. An upload key gets 403.`,
          querystring: Type.Object(TrailQuery),
          response: { 200: listOf('trail', TrailEntrySchema), ...commonErrors() },
        },
      },
      async (req, reply) => {
        const scope = scopeOf(req);
        return sendTrail(c, reply, baseUrl(req, c.config.publicUrl), '/v2/account/trail', { accountId: scope.accountId, mode: scope.mode }, req.query);
      },
    );
  };

export const adminTrailRoute =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/admin/accounts/:id/trail',
      {
        schema: {
          tags: ['admin'],
          security: [{ adminAuth: [] }],
          summary: "The account's trail: who changed what, newest first",
          params: Type.Object({ id: Type.String({ maxLength: 36 }) }),
          querystring: Type.Object({
            ...TrailQuery,
            mode: Type.Optional(Type.String({ enum: ['live', 'test'], description: "One mode's entries and the whole account's" })),
          }),
          response: { 200: listOf('trail', TrailEntrySchema), ...commonErrors(404) },
        },
      },
      async (req, reply) => {
        await c.accounts.get(req.params.id); // 404 for an account that does not exist
        const mode = req.query.mode as 'live' | 'test' | undefined;
        return sendTrail(
          c,
          reply,
          `${req.protocol}://${req.host}`,
          `/admin/accounts/${encodeURIComponent(req.params.id)}/trail`,
          { accountId: req.params.id, mode },
          req.query,
        );
      },
    );
  };
