import type { FastifyPluginAsync } from 'fastify';
import { withTimeout } from '../../platform/timeouts.ts';

/** A named readiness probe; the wiring adds the database's, Redis's and each role's (FTP listening, IMAP connected, ...). */
export type ReadinessCheck = () => Promise<void>;

export const healthRoutes = (checks: Map<string, ReadinessCheck>): FastifyPluginAsync => async (app) => {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (_req, reply) => {
    const results: Record<string, string> = {};
    await Promise.all(
      [...checks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch (e) {
          results[name] = `failing: ${(e as Error).message}`;
        }
      }),
    );
    const ok = Object.values(results).every((r) => r === 'ok');
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not ready', checks: results });
  });
};
