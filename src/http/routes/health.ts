import type { FastifyPluginAsync } from 'fastify';
import type { Container } from '../../app/container.ts';

/** A named readiness probe; the ops roles add theirs (FTP listening, IMAP connected, ...). */
export type ReadinessCheck = () => Promise<void>;

export const healthRoutes = (c: Container, checks: Map<string, ReadinessCheck>): FastifyPluginAsync => async (app) => {
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (_req, reply) => {
    const all = new Map<string, ReadinessCheck>([
      ['database', async () => void (await c.db.query('select 1'))],
      ['redis', async () => void (await withTimeout(c.redis.ping(), 1000))],
      ...checks,
    ]);
    const results: Record<string, string> = {};
    await Promise.all(
      [...all].map(async ([name, check]) => {
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

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}
