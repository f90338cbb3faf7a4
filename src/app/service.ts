// Starts the configured roles in this process over one container, and stops them in order:
// intake first (API, FTP, mail: nothing new comes in), then workers (in-flight jobs finish or
// are handed back), then queues; the container closes Redis and the database last.
import type { FastifyInstance } from 'fastify';
import type { Config, Role } from '../config/config.ts';
import { buildServer } from '../http/server.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import { metricsPlugin } from '../ops/metrics-route.ts';
import { buildOpsServer } from '../ops/ops-server.ts';
import { settledBefore } from '../ops/shutdown.ts';
import { resolveAdminToken } from './admin-token.ts';
import { createContainer, type Container, type ContainerOptions } from './container.ts';
import type { Logger } from './logger.ts';

export interface RunningService {
  container: Container;
  /** the API's address, when the api role runs */
  apiUrl?: string;
  /** where /healthz, /readyz and /metrics answer (the API's address, or the ops listener's) */
  httpUrl: string;
  /** stops every role in order; the grace period ends at `deadline` (default: SHUTDOWN_GRACE_MS from now) */
  stop(deadline?: number): Promise<void>;
}

export async function startService(config: Config, log: Logger, opts: ContainerOptions = {}): Promise<RunningService> {
  const c = await createContainer(config, log, opts);
  const roles = new Set<Role>(config.roles);
  const readiness = new Map<string, ReadinessCheck>();
  let stopping = false;
  // A draining process answers /readyz with 503 so load balancers stop sending it work.
  readiness.set('lifecycle', async () => {
    if (stopping) throw new Error('shutting down');
  });
  let apiUrl: string | undefined;
  let httpUrl: string;
  try {
    if (roles.has('api')) {
      const app = await buildServer(c, {
        adminToken: resolveAdminToken(config.adminToken, config.dataDir),
        readiness,
        plugins: [metricsPlugin(c.metrics, config.metricsToken)],
      });
      apiUrl = httpUrl = await app.listen({ port: config.port, host: config.host });
      c.onStop('intake', 'api', (deadline) => closeHttp(app, deadline));
      const purge = setInterval(() => {
        c.maintenance.purgeTestData().catch((err) => log.error({ err }, 'test data purge failed'));
        c.idempotency.purgeExpired().catch((err) => log.error({ err }, 'idempotency purge failed'));
      }, 3_600_000);
      purge.unref();
      c.onClose(() => clearInterval(purge));
      log.info({ url: apiUrl, database: c.db.kind }, 'api listening');
    } else {
      // no API here: health and metrics still answer, until the very end of the stop
      const ops = await buildOpsServer(c, readiness);
      httpUrl = await ops.listen({ port: config.port, host: config.host });
      c.onClose(() => closeHttp(ops, Date.now() + 1000));
      log.info({ url: httpUrl, roles: config.roles }, 'health and metrics listening');
    }
  } catch (e) {
    await c.close();
    throw e;
  }
  return {
    container: c,
    apiUrl,
    httpUrl,
    stop: (deadline) => {
      stopping = true;
      return c.close(deadline);
    },
  };
}

/** Stops accepting, lets in-flight requests finish until the deadline, then cuts what is left. */
async function closeHttp(app: FastifyInstance, deadline: number): Promise<void> {
  const closing = app.close();
  if (!(await settledBefore(closing, deadline))) app.server.closeAllConnections();
  await closing;
}
