import type { FastifyPluginAsync } from 'fastify';
import { runReadinessChecks, type ReadinessCheck } from '../../ops/readiness.ts';

export type { ReadinessCheck };

export const healthRoutes =
  (checks: Map<string, ReadinessCheck>): FastifyPluginAsync =>
  async (app) => {
    const hidden = { schema: { hide: true } };
    app.get('/healthz', hidden, async () => ({ status: 'ok' }));
    app.get('/readyz', hidden, async (_req, reply) => {
      const results: Record<string, string> = {};
      for (const r of await runReadinessChecks(checks)) results[r.name] = r.ok ? 'ok' : `failing: ${r.problem}`;
      const ok = Object.values(results).every((r) => r === 'ok');
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not ready', checks: results });
    });
  };
