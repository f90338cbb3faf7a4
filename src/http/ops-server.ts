// A process without the api role answers /healthz, /readyz and /metrics on OPS_PORT, so that
// orchestrators can probe and Prometheus can scrape every process (workers, FTP and mail nodes).
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from '../platform/logger.ts';
import { healthRoutes, type ReadinessCheck } from './routes/health.ts';

export async function buildOpsServer(log: Logger, readiness: Map<string, ReadinessCheck>, metrics: FastifyPluginAsync): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: log.child({ role: 'ops-http' }) as FastifyBaseLogger, disableRequestLogging: true });
  await app.register(healthRoutes(readiness));
  await app.register(metrics);
  return app;
}
