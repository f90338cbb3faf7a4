// The lazy schema compilers (src/http/lazy-schema-compilers.ts) against real Fastify: nothing is
// compiled when the server is ready, a route's schemas are compiled by its first request, and what
// a client sees (400 bodies, coerced input, serialized responses) is what Fastify's default
// compilers give, on the same routes with the same ajv options as src/http/server.ts.
import { Type } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilers, type SchemaCompilers } from '../../src/http/lazy-schema-compilers.ts';

const Item = Type.Object({ id: Type.String(), amount: Type.Integer(), tags: Type.Array(Type.String()), at: Type.String({ format: 'date-time' }) });
const apps: FastifyInstance[] = [];

async function server(compilers?: SchemaCompilers): Promise<FastifyInstance> {
  const app = Fastify({
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    ...(compilers ? { schemaController: { compilersFactory: compilers.compilersFactory } } : {}),
  });
  apps.push(app);
  // a shared schema referenced by $ref, as src/http/server.ts adds ErrorSchema
  app.addSchema({ $id: 'Amount', type: 'integer', minimum: 1 });
  app.post(
    '/items',
    {
      schema: {
        body: Type.Object({ name: Type.String({ minLength: 2 }), amount: Type.Ref('Amount') }, { additionalProperties: false }),
        querystring: Type.Object({ tags: Type.Optional(Type.Array(Type.String())), n: Type.Optional(Type.Integer()) }),
        response: { 201: Item },
      },
    },
    async (req, reply) => {
      const q = req.query as { tags?: string[]; n?: number };
      const body = req.body as { name: string; amount: number };
      // extra properties are dropped and the date written out by the serializer
      return reply
        .code(201)
        .send({ id: `${body.name}-${q.n ?? 0}`, amount: body.amount, tags: q.tags ?? [], at: new Date(Date.UTC(2026, 0, 2)), secret: 'not serialized' });
    },
  );
  app.register(async (scoped) => {
    // an encapsulated context with a schema of its own: its own compiler, as with Fastify's default
    scoped.addSchema({ $id: 'Code', type: 'string', pattern: '^[A-Z]{3}$' });
    scoped.get(
      '/codes/:code',
      { schema: { params: Type.Object({ code: Type.Ref('Code') }), response: { 200: Type.Object({ code: Type.String() }) } } },
      async (req) => req.params,
    );
  });
  await app.ready();
  return app;
}

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

const requests = [
  { method: 'POST', url: '/items', payload: { name: 'x', amount: 5 } },
  { method: 'POST', url: '/items', payload: { name: 'xy', amount: 0 } },
  { method: 'POST', url: '/items', payload: { name: 'xy', amount: '7', extra: true } },
  { method: 'POST', url: '/items', payload: { amount: 7 } },
  { method: 'POST', url: '/items?n=abc', payload: { name: 'xy', amount: 7 } },
  { method: 'POST', url: '/items?n=3&tags=a', payload: { name: 'xy', amount: '7' } },
  { method: 'POST', url: '/items?tags=a&tags=b', payload: { name: 'xy', amount: 7 } },
  { method: 'GET', url: '/codes/EUR' },
  { method: 'GET', url: '/codes/eur' },
  { method: 'HEAD', url: '/codes/EUR' },
] as const;

describe('lazy schema compilers', () => {
  it("give the same statuses, bodies and content types as Fastify's default compilers", async () => {
    const eager = await server();
    const lazy = await server(lazySchemaCompilers());
    for (const r of requests) {
      const [a, b] = await Promise.all([eager.inject(r), lazy.inject(r)]);
      expect({ r, status: b.statusCode, type: b.headers['content-type'], body: b.body }).toEqual({
        r,
        status: a.statusCode,
        type: a.headers['content-type'],
        body: a.body,
      });
    }
    // the cases above do test something: refusals, coercion and serialization
    const statuses = await Promise.all(requests.map(async (r) => (await lazy.inject(r)).statusCode));
    expect(statuses).toEqual([400, 400, 400, 400, 400, 201, 201, 200, 400, 200]);
    const created = (await lazy.inject(requests[5])).json();
    expect(created).toEqual({ id: 'xy-3', amount: 7, tags: ['a'], at: '2026-01-02T00:00:00.000Z' });
  });

  it('compile nothing before a route is used, and only what its first request needs', async () => {
    const all = lazySchemaCompilers();
    await server(all);
    const total = all.compileAll();
    // POST body and querystring, 201; GET and HEAD /codes: params and 200 each
    expect(total).toBe(7);
    expect(all.compileAll()).toBe(0);

    const used = lazySchemaCompilers();
    const app = await server(used);
    // a refused body: Fastify validates the body before the querystring and serializes no 201
    expect((await app.inject(requests[0])).statusCode).toBe(400);
    expect(used.compileAll()).toBe(total - 1);
  });

  it('a schema that cannot compile fails its requests (and compileAll), not the start', async () => {
    const compilers = lazySchemaCompilers();
    const app = Fastify({ schemaController: { compilersFactory: compilers.compilersFactory } });
    apps.push(app);
    app.post('/broken', { schema: { body: { type: 'object', properties: { a: { $ref: 'Missing' } } } } }, async () => 'ok');
    await app.ready();
    expect((await app.inject({ method: 'POST', url: '/broken', payload: { a: 1 } })).statusCode).toBe(500);
    const again = lazySchemaCompilers();
    const other = Fastify({ schemaController: { compilersFactory: again.compilersFactory } });
    apps.push(other);
    other.post('/broken', { schema: { body: { type: 'object', properties: { a: { $ref: 'Missing' } } } } }, async () => 'ok');
    await other.ready();
    expect(() => again.compileAll()).toThrow(/Missing/);
  });
});
