// Every /v2 route: the per-key rate limit, then the Bearer key (from the
// node's cache while the announcements say revocations reach it, otherwise from the database), then
// Idempotency-Key handling for POST. An upload key (issue 44) opens only POST and GET /v2/imports,
// from its networks; every other route answers 403. The limit comes first so that floods of bad keys are
// throttled (by address) before they cost a key lookup.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { hashKey, keyMode } from '../../domain/api-keys.ts';
import { uploadKeyMode, type KeyScope } from '../../domain/upload-keys.ts';
import { ApiError } from '../api-error.ts';
import { IdempotencyService, type IdempotencyClaim } from '../../services/idempotency-service.ts';
import { bearerToken } from './admin-auth.ts';
import { HAL } from '../schemas/common.ts';
import type { RateAnswer } from '../rate-limiter.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the request's claimed Idempotency-Key (its transaction), until the response is stored */
    idempotencyClaim?: IdempotencyClaim;
  }
}

/** What an upload key opens of the API: `METHOD route` */
const UPLOAD_KEY_ROUTES = new Set(['POST /v2/imports', 'GET /v2/imports']);

const invalidKey = () => ApiError.unauthorized('The API key is invalid or has been replaced');

/** "1 minute", "30 seconds": the window in words for the 429 detail (whole seconds, see config) */
const windowText = (ms: number) =>
  ms % 60_000 === 0 ? (ms === 60_000 ? '1 minute' : `${ms / 60_000} minutes`) : ms === 1000 ? '1 second' : `${ms / 1000} seconds`;

export async function registerApiAuth(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const { rateLimitMax: max, rateLimitWindowMs: windowMs } = c.config;
  // start limiting (and caching) from the first request when Redis is there; never hold start-up for it
  app.addHook('onReady', () => c.announcements.ready(2000));

  app.decorateRequest('scope', null);
  // A callback hook, not an async one: a request whose slice and key the node holds (nearly all)
  // passes without a promise; only a slice reservation (Redis) or a key look-up (the database) waits.
  app.addHook('onRequest', (req, reply, done) => {
    // The key is hashed on every request rather than remembered by its raw text: no raw key
    // outlives its request in this node's memory (a heap dump holds none).
    const key = bearerToken(req.headers.authorization);
    const hash = key !== undefined && (keyMode(key) !== undefined || uploadKeyMode(key) !== undefined) ? hashKey(key) : undefined;
    // one budget per key; requests without a usable key share their address's budget. The slice
    // this node holds answers at once; only the request that takes the next one waits for Redis.
    const bucket = hash ? `k:${hash}` : `ip:${req.ip}`;
    const taken = c.rateLimiter.take(bucket);
    if (taken) return authorize(req, reply, key, hash, taken, done);
    c.rateLimiter.consume(bucket).then((rate) => authorize(req, reply, key, hash, rate, done), done);
  });

  const authorize = (
    req: FastifyRequest,
    reply: FastifyReply,
    key: string | undefined,
    hash: string | undefined,
    rate: RateAnswer | undefined,
    done: (err?: Error) => void,
  ) => {
    if (rate) {
      const resetS = Math.ceil(rate.resetMs / 1000);
      reply.header('x-ratelimit-limit', max).header('x-ratelimit-remaining', rate.remaining).header('x-ratelimit-reset', resetS);
      if (!rate.allowed)
        return done(
          new ApiError(429, `Rate limit of ${max} requests per ${windowText(windowMs)} reached; retry after ${resetS} s`, undefined, {
            'retry-after': String(resetS),
          }),
        );
    }
    if (!key) return done(ApiError.unauthorized('Send the API key as Authorization: Bearer <key>'));
    if (!hash) return done(invalidKey());
    // the node's cache answers only while revocations are known to reach it (the announcements' heartbeat)
    const trusted = c.announcements.cacheTrusted();
    const cached = trusted ? c.accounts.cachedScope(hash) : undefined;
    if (cached) return admit(req, cached, done);
    const lookup = uploadKeyMode(key) ? c.uploadKeys.authenticate(key, trusted, hash) : c.accounts.authenticate(key, trusted, hash);
    lookup.then((scope) => (scope ? admit(req, scope, done) : done(invalidKey())), done);
  };

  const admit = (req: FastifyRequest, scope: KeyScope, done: (err?: Error) => void) => {
    const up = scope.uploadKey;
    if (up) {
      if (!c.uploadKeys.allows(up, req.ip))
        return done(new ApiError(403, `This upload key may not be used from ${req.ip}: it is limited to the networks it was made for`));
      if (!UPLOAD_KEY_ROUTES.has(`${req.method} ${req.routeOptions.url}`))
        return done(new ApiError(403, 'An upload key opens only POST /v2/imports and GET /v2/imports; this needs the API key'));
      c.uploadKeys.noteUse(up, req.ip, 'http');
    } else c.accounts.noteKeyUse(scope, 'http', req.ip);
    req.scope = scope;
    done();
  };

  // Idempotency-Key: only POST routes carry these hooks, so reads pay nothing for them, and
  // a POST without the header passes them synchronously. A claimed key opens the request's
  // transaction: the handler runs inside it, and the stored response commits with its effects.
  const claimKey = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.scope) return done();
    const k = String(key);
    c.idempotency.begin(req.scope, k, IdempotencyService.fingerprint(req.method, req.url, req.body)).then((decision) => {
      if (decision.kind === 'replay') {
        reply.code(decision.status).type(HAL).header('idempotent-replayed', 'true').send(decision.body);
        return;
      }
      req.idempotencyClaim = decision.claim;
      // the handler (called from done) and all it starts run in the claim's transaction
      decision.claim.run(() => done());
    }, done);
  };
  const storeResponse = (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
    const claim = req.idempotencyClaim;
    if (!claim) return done(null, payload);
    req.idempotencyClaim = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    // a failed commit is the error's answer instead (503 when the database went away): nothing was kept
    claim.finish(reply.statusCode, body).then(
      () => done(null, payload),
      (err) => done(err),
    );
  };
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    // biome-ignore lint/suspicious/noExplicitAny: Fastify's route hook arrays are typed per route generic
    route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), claimKey] as any;
    // biome-ignore lint/suspicious/noExplicitAny: Fastify's route hook arrays are typed per route generic
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), storeResponse] as any;
  });
}
