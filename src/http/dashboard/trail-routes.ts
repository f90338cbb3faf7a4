// The trail for owners (issue 44): who changed what in this mode and in the whole account, newest
// first, 50 a page, filtered by kind of change, by who made it and by days; the same filter as CSV.
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { parsePageRequest } from '../../domain/pagination.ts';
import { TRAIL_ACTOR_KINDS } from '../../domain/trail.ts';
import { parseTrailQuery } from '../../services/trail-service.ts';
import { trailCsv } from '../resources/trail/presenter.ts';
import { takeFlash } from './flash.ts';
import { allowed } from './roles.ts';
import { signed } from './session.ts';

type Query = Record<string, string | undefined>;
/** the families of changes the filter offers (an action's first part) */
const FAMILIES = ['api_key', 'upload_key', 'senders', 'import', 'user', 'second_factor', 'account'];
const FILTERS = ['action', 'actor', 'since', 'until'] as const;

export async function trailRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const owners = allowed('seeTrail');
  const filterOf = (q: Query) => Object.fromEntries(FILTERS.filter((k) => q[k]).map((k) => [k, q[k]!]));

  app.get<{ Querystring: Query }>('/dashboard/trail', { preHandler: [...owners.preHandler, takeFlash(c.users)] }, async (req, reply) => {
    const { scope } = signed(req);
    const filter = filterOf(req.query);
    const page = await c.trail.page(
      { accountId: scope.accountId, mode: scope.mode, ...parseTrailQuery(filter) },
      parsePageRequest({ from: req.query.from, limit: 50 }),
    );
    const link = (from: string | undefined) => from && `?${new URLSearchParams({ ...filter, from })}`;
    return reply.view('trail.eta', {
      title: req.t('trail.title'),
      account: await c.accounts.get(scope.accountId),
      entries: page.items,
      filter,
      families: FAMILIES,
      kinds: TRAIL_ACTOR_KINDS,
      next: link(page.next),
      previous: link(page.previous),
      csv: `/dashboard/trail.csv${Object.keys(filter).length ? `?${new URLSearchParams(filter)}` : ''}`,
    });
  });

  app.get<{ Querystring: Query }>('/dashboard/trail.csv', owners, async (req, reply) => {
    const { scope } = signed(req);
    const entries = await c.trail.export({ accountId: scope.accountId, mode: scope.mode, ...parseTrailQuery(filterOf(req.query)) });
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="trail-${scope.mode}.csv"`).send(trailCsv(entries));
  });
}
