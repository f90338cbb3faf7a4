// GET of a /v2 collection: one page, newest first, in the list envelope. Every list answers the
// same way, so a route names only its items, its service call and its optional filter (a query
// parameter that narrows the list and is carried into the page links).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Scope } from '../../domain/scope.ts';
import { HAL, PageQuery, commonErrors, listOf, security } from '../schemas/common.ts';
import { baseUrl, scopeOf } from '../request-context.ts';
import { envelope } from '../hal.ts';
import { type Page, type PageRequest, parsePageRequest } from '../../domain/pagination.ts';
import { type TObject, Type } from '../schemas/typebox.ts';

export function listRoute<T>(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  publicUrl: string | undefined,
  r: {
    path: string;
    key: string;
    item: TObject;
    tags: string[];
    summary: string;
    filter?: { name: string; description: string };
    list(scope: Scope, page: PageRequest, filter: string | undefined): Promise<Page<T>>;
    present(base: string, item: T): Record<string, unknown>;
  },
): void {
  const filter = r.filter && { [r.filter.name]: Type.Optional(Type.String({ description: r.filter.description })) };
  const schema = {
    tags: r.tags,
    security,
    summary: r.summary,
    querystring: Type.Object({ ...PageQuery, ...filter }),
    response: { 200: listOf(r.key, r.item), ...commonErrors() },
  };
  app.get(r.path, { schema }, async (req, reply) => {
    const query = req.query as Record<string, string | undefined>;
    const page = parsePageRequest(query);
    const value = r.filter && query[r.filter.name];
    const result = await r.list(scopeOf(req), page, value);
    const links = r.filter ? { [r.filter.name]: value } : {};
    return reply.type(HAL).send(envelope(baseUrl(req, publicUrl), r.path, r.key, result, page.limit, r.present, links));
  });
}
