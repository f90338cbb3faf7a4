import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { parse as parseQuery } from 'node:querystring';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { HttpDeps } from './http-deps.ts';
import { secretMasker } from '../platform/logger.ts';
import { registerErrorHandler, sendError } from './error-handler.ts';
import { registerOpenApi } from './openapi.ts';
import { lazyChildLogger, requestSerializers } from './log-serializers.ts';
import { ApiError } from './api-error.ts';
import { handleClientError } from './client-errors.ts';
import { registerApiAuth } from './plugins/api-auth.ts';
import { registerInputGuard } from './plugins/input-guard.ts';
import { lowercaseKeys, registerFieldNames } from './plugins/field-names.ts';
import { registerMethodNotAllowed } from './plugins/method-not-allowed.ts';
import { adminRoutes } from './routes/admin.ts';
import { API_RESOURCES } from './resources/api-resources.ts';
import { homeRoute } from './routes/home.ts';
import { healthRoutes, type ReadinessCheck } from './routes/health.ts';
import { ErrorSchema, HAL } from './schemas/common.ts';
import { lazySchemaCompilers, type SchemaCompilers } from './lazy-schema-compilers.ts';

export interface ServerOptions {
  adminToken?: string;
  readiness?: Map<string, ReadinessCheck>;
  /** more /admin routes (behind the admin token), e.g. the queue dashboard */
  adminPlugins?: FastifyPluginAsync[];
  /** the SFTP host key fingerprints the admin API shows with each account */
  sftpHostKeys?: { type: string; fingerprint: string }[];
  /** routes outside /v2 and /admin, e.g. /metrics */
  plugins?: FastifyPluginAsync[];
  /** how route schemas are compiled (default: each at its route's first use); tests pass theirs to compile them all */
  schemaCompilers?: SchemaCompilers;
}

// A 5 MB PDF in Base64 is 5,242,880 characters; JSON around it needs a little more.
const BODY_LIMIT = 6 * 1024 * 1024;
const MAX_PARAM_LENGTH = 500;

export async function buildServer(c: HttpDeps, opts: ServerOptions = {}): Promise<FastifyInstance> {
  const { config } = c;
  const https =
    config.tlsCert && config.tlsKey ? { cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey), minVersion: 'TLSv1.2' as const } : null;
  const app = (
    Fastify({
      loggerInstance: c.log.child(
        { role: 'api' },
        { serializers: requestSerializers(secretMasker([opts.adminToken, config.adminToken, config.metricsToken])) },
      ),
      childLoggerFactory: lazyChildLogger,
      https,
      bodyLimit: BODY_LIMIT,
      trustProxy: config.trustProxy,
      requestTimeout: config.requestTimeoutMs,
      // Node looks for timed-out requests this often (30 s by default, a long wait past a short timeout)
      http: { connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.requestTimeoutMs / 4)) },
      clientErrorHandler: handleClientError,
      // the request id is the trace id of everything the request starts (an import's intake id and
      // its worker's log lines carry it too): one log key across HTTP, FTP and e-mail
      logController: new LogController({ requestIdLogLabel: 'traceId' }),
      genReqId: (req: import('node:http').IncomingMessage) => {
        const given = req.headers['x-request-id'];
        return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID(); // node:crypto's is pooled, unlike globalThis.crypto's
      },
      // URLs the router cannot decode get the spec's error body too, not Fastify's own
      frameworkErrors: (err: { code?: string }, _req: unknown, reply: import('fastify').FastifyReply) =>
        sendError(
          reply,
          ApiError.badRequest(
            err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters` : 'The URL is not valid',
          ),
        ),
      routerOptions: {
        ignoreTrailingSlash: true,
        // long enough that the route schemas, not the router, refuse over-long ids (naming the field)
        maxParamLength: MAX_PARAM_LENGTH,
        querystringParser: (s: string) => (s.length === 0 ? {} : lowercaseKeys(parseQuery(s))), // most requests have none
      },
      ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
      // Fastify's own ajv and fast-json-stringify compilers, run at each schema's first use instead of
      // at start-up (a restart's third of a second, and ajv's modules, for routes not yet used)
      schemaController: { compilersFactory: (opts.schemaCompilers ?? lazySchemaCompilers()).compilersFactory },
      // biome-ignore lint/suspicious/noExplicitAny: Fastify's factory options for the lazy schema compilers
    } as any) as unknown as FastifyInstance
  ).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    done(null, parseQuery(body as string));
  });
  app.removeContentTypeParser(['text/plain', 'application/json']);
  // JSON (also application/hal+json and other +json types). An empty body is no body: clients
  // that send Content-Type: application/json on every request still get a DELETE through.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(/^application\/([\w.-]+\+)?json(;|$)/, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });
  registerErrorHandler(app);
  // The OpenAPI document states the media types the API really speaks.
  app.addHook('onRoute', (route) => {
    if (!route.schema || !route.url.startsWith('/v2/')) return;
    const schema = route.schema as { produces?: string[]; consumes?: string[]; body?: unknown };
    schema.produces ??= [HAL];
    if (schema.body) schema.consumes ??= ['application/json', 'application/x-www-form-urlencoded'];
  });
  registerFieldNames(app);
  registerInputGuard(app);
  registerMethodNotAllowed(app);
  app.addSchema(ErrorSchema);

  await registerOpenApi(app, config);

  await app.register(healthRoutes(opts.readiness ?? new Map()));
  await app.register(homeRoute);
  await app.register(async (v2) => {
    await registerApiAuth(v2, c);
    // every resource the same way (resources/api-resources.ts)
    for (const resource of API_RESOURCES) await v2.register(resource(c));
  });
  if (opts.adminToken) {
    await app.register(adminRoutes(c, opts.adminToken, { sftpHostKeys: opts.sftpHostKeys }));
    for (const plugin of opts.adminPlugins ?? []) await app.register(plugin);
  }
  for (const plugin of opts.plugins ?? []) await app.register(plugin);
  return app;
}
