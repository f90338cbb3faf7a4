// A process without the api role answers /healthz, /readyz and /metrics on OPS_PORT, so that
// orchestrators can probe and Prometheus can scrape every process (workers, FTP and mail nodes).
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Container } from '../app/container.ts';
import { healthRoutes, type ReadinessCheck } from '../http/routes/health.ts';
import { metricsPlugin } from './metrics-route.ts';

export async function buildOpsServer(c: Container, readiness: Map<string, ReadinessCheck>): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: c.log.child({ role: 'ops-http' }) as FastifyBaseLogger, disableRequestLogging: true });
  await app.register(healthRoutes(c, readiness));
  await app.register(metricsPlugin(c.metrics, c.config.metricsToken));
  return app;
}
