// Every /v2 route: one Redis round trip for the per-key rate limit and the key's revocation
// marker, then the Bearer key (from the node's cache when Redis vouches for it, otherwise from
// the database), then Idempotency-Key handling for POST. The limit comes first so that floods
// of bad keys are throttled (by address) before they cost a key lookup.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { hashKey, keyMode } from '../../domain/api-keys.ts';
import { ApiError } from '../api-error.ts';
import { IdempotencyService } from '../../services/idempotency-service.ts';
import { HAL } from '../schemas/common.ts';
import { bearerToken } from './admin-auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

/** "1 minute", "30 seconds": the window in words for the 429 detail */
function windowText(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? '1 minute' : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return ms === 1000 ? '1 second' : `${ms / 1000} seconds`;
  return `${ms} ms`;
}

export async function registerApiAuth(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const { rateLimitMax: max, rateLimitWindowMs: windowMs } = c.config;
  // start limiting from the first request when Redis is there; never hold start-up for it
  app.addHook('onReady', () => c.gate.ready(2000));

  app.decorateRequest('scope', null);
  app.addHook('onRequest', async (req, reply) => {
    const key = bearerToken(req.headers.authorization);
    const usable = key !== undefined && keyMode(key) !== undefined;
    const hash = usable ? hashKey(key) : undefined;
    // one budget per key; requests without a usable key share their address's budget
    const gate = await c.gate.hit(hash ? `k:${hash}` : `ip:${req.ip}`, hash, windowMs);
    if (gate) {
      const resetS = Math.ceil(gate.ttlMs / 1000);
      reply.header('x-ratelimit-limit', max).header('x-ratelimit-remaining', Math.max(0, max - gate.count)).header('x-ratelimit-reset', resetS);
      if (gate.count > max) {
        throw new ApiError(429, `Rate limit of ${max} requests per ${windowText(windowMs)} reached; retry after ${resetS} s`, undefined, { 'retry-after': String(resetS) });
      }
    }
    if (!key) throw ApiError.unauthorized('Send the API key as Authorization: Bearer <key>');
    // the cache is trusted only when Redis just said the key was not replaced
    const scope = hash && (await c.accounts.authenticate(key, gate ? (gate.revoked ? 'evict' : 'use') : 'bypass', hash));
    if (!scope) throw ApiError.unauthorized('The API key is invalid or has been replaced');
    req.scope = scope;
  });

  // Idempotency-Key: only POST routes carry these hooks, so reads pay nothing for them, and
  // a POST without the header passes them synchronously.
  const claimKey = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.scope) return done();
    const k = String(key);
    c.idempotency.begin(req.scope, k, IdempotencyService.fingerprint(req.method, req.url, req.body)).then((decision) => {
      if (decision.kind === 'replay') {
        reply.code(decision.status).type(HAL).header('idempotent-replayed', 'true').send(decision.body);
        return;
      }
      req.idempotencyKey = k;
      // the claim lives as long as this request: renewed until the response is out or the client gone
      const release = c.idempotency.hold(req.scope!, k, (err) => req.log.warn({ err }, 'idempotency lease not renewed'));
      reply.raw.once('close', release);
      done();
    }, done);
  };
  const storeResponse = (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
    if (!req.idempotencyKey || !req.scope || typeof payload !== 'string') return done(null, payload);
    c.idempotency.finish(req.scope, req.idempotencyKey, reply.statusCode, payload).then(() => done(null, payload), (err) => done(err));
  };
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), claimKey] as any;
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), storeResponse] as any;
  });
}
