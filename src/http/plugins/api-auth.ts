// Every /v2 route, in this order: the per-key rate limit (shared across nodes through Redis), then
// the Bearer key, then Idempotency-Key handling for POST. The limit runs first so that floods of
// bad keys are throttled (by address) before they cost a key lookup.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Container } from '../../app/container.ts';
import { hashKey, keyMode } from '../../domain/api-keys.ts';
import { ApiError } from '../../domain/errors.ts';
import { IdempotencyService } from '../../services/idempotency-service.ts';
import { HAL } from '../schemas/common.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string;
  }
}

function bearer(req: FastifyRequest): string | undefined {
  return BEARER.exec(req.headers.authorization ?? '')?.[1];
}

export async function registerApiAuth(app: FastifyInstance, c: Container): Promise<void> {
  // Its own connection: it fails fast when Redis is away (skipOnError then lets requests through),
  // where the shared one, built for BullMQ, would queue commands and hang the request.
  const limiterRedis = c.redis.duplicate({ enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500 });
  limiterRedis.on('error', () => {}); // the shared connection already logs Redis trouble
  app.addHook('onClose', async () => limiterRedis.disconnect());
  // Start limiting from the first request when Redis is there; never hold start-up for it.
  app.addHook('onReady', async () => {
    if (limiterRedis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        limiterRedis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 2000);
      limiterRedis.once('ready', done);
    });
  });

  await app.register(rateLimit, {
    max: c.config.rateLimitMax,
    timeWindow: c.config.rateLimitWindowMs,
    redis: limiterRedis,
    nameSpace: `${c.config.redisPrefix}:rl:`,
    skipOnError: true, // Redis down must not take the API down
    keyGenerator: (req) => {
      const key = bearer(req);
      // one budget per key; requests without a usable key share their address's budget
      return key && keyMode(key) ? `k:${hashKey(key)}` : `ip:${req.ip}`;
    },
    errorResponseBuilder: (_req, ctx) => new ApiError(429, `Rate limit of ${ctx.max} requests per ${ctx.after} reached; retry after ${Math.ceil(ctx.ttl / 1000)} s`),
  });

  app.decorateRequest('scope', null);
  const authenticate: onRequestAsyncHookHandler = async (req) => {
    const key = bearer(req);
    if (!key) throw ApiError.unauthorized('Send the API key as Authorization: Bearer <key>');
    const scope = await c.accounts.authenticate(key);
    if (!scope) throw ApiError.unauthorized('The API key is invalid or has been replaced');
    req.scope = scope;
  };
  // Route-level, after the rate limiter's own route-level hook (app-level hooks would run first).
  app.addHook('onRoute', (route) => {
    route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), authenticate] as any;
  });

  app.addHook('preHandler', async (req, reply) => {
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || key === undefined || !req.scope) return;
    const k = String(key);
    const decision = await c.idempotency.begin(req.scope, k, IdempotencyService.fingerprint(req.method, req.url, req.body));
    if (decision.kind === 'replay') {
      return reply.code(decision.status).type(HAL).header('idempotent-replayed', 'true').send(decision.body);
    }
    req.idempotencyKey = k;
  });

  app.addHook('onSend', async (req, reply, payload) => {
    if (req.idempotencyKey && req.scope && typeof payload === 'string') {
      await c.idempotency.finish(req.scope, req.idempotencyKey, reply.statusCode, payload);
    }
    return payload;
  });
}
