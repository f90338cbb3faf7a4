// Two OpenAPI documents from the route schemas: the API's (/v2/openapi.json, browsable at /docs)
// for account holders, and the admin API's (/admin/openapi.json, behind the admin token) for
// operators. Both pass `redocly lint` with its recommended rules (test/api/openapi.test.ts).
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.ts';

type Params = { properties: Record<string, unknown>; required?: string[] };

declare module 'fastify' {
  interface FastifyInstance {
    // biome-ignore lint/suspicious/noExplicitAny: @fastify/swagger's document type
    adminSwagger(): Record<string, any>;
  }
}

// Paths that differ only in a parameter's name are one path to OpenAPI (as to the router):
// each is documented under one name, its operations saying what they take there.
const SHARED_PARAMS: Record<string, [string, string]> = {
  '/v2/documents/:invoice_id': ['invoice_id', 'id'],
  '/v2/documents/:document_id': ['document_id', 'id'],
  '/admin/accounts/:id/ssh-keys/:mode': ['mode', 'mode_or_key_id'],
  '/admin/accounts/:id/ssh-keys/:keyId': ['keyId', 'mode_or_key_id'],
};

const onlyUnder =
  (prefix: string): SwaggerTransform =>
  ({ schema, url }) => {
    if (!url.startsWith(prefix)) return { schema: { ...schema, hide: true }, url };
    const shared = SHARED_PARAMS[url];
    const params = schema.params as Params | undefined;
    if (!shared || !params) return { schema, url };
    const [from, to] = shared;
    const { [from]: param, ...rest } = params.properties;
    const required = (params.required ?? []).map((r) => (r === from ? to : r));
    return { schema: { ...schema, params: { ...params, properties: { ...rest, [to]: param }, required } }, url: url.replace(`:${from}`, `:${to}`) };
  };

type BearerScheme = { type: 'http'; scheme: 'bearer'; description: string };

const baseDocument = (config: Config, title: string, description: string, securitySchemes: Record<string, BearerScheme>) => ({
  openapi: '3.0.3',
  info: { title, version: '2.0.0', description },
  // relative to where the document was fetched from, unless PUBLIC_URL names the address
  servers: [{ url: config.publicUrl?.replace(/\/$/, '') || '/', description: 'this installation' }],
  components: { securitySchemes },
});

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: baseDocument(
      config,
      'invoice-intake API',
      'Customers, invoices, documents, payments and document imports. Field and query names match case-insensitively.',
      {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'live_... or test_... API key' },
      },
    ),
    transform: onlyUnder('/v2/'),
  });
  await app.register(swagger, {
    decorator: 'adminSwagger',
    openapi: baseDocument(config, 'invoice-intake admin API', 'Accounts, their keys and users, and import records across accounts, for the operator.', {
      adminAuth: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
    }),
    transform: onlyUnder('/admin/'),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
