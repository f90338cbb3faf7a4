// Starts the configured roles in this process over one container, and stops them in order.
import type { Config, Role } from '../config/config.ts';
import { buildServer } from '../http/server.ts';
import { importRoutes } from '../http/routes/imports.ts';
import { startIntakeWorkers } from '../intake/queue/intake-workers.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import { resolveAdminToken } from './admin-token.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import { createContainer, type Container, type ContainerOptions } from './container.ts';
import type { Logger } from './logger.ts';

export interface RunningService {
  container: Container;
  /** where channels hand files (the same object as container.intake) */
  intake: IntakeReceiver;
  /** the API's address, when the api role runs */
  apiUrl?: string;
  /** the FTP server's port, when the ftp role runs */
  ftpPort?: number;
  stop(): Promise<void>;
}

export async function startService(config: Config, log: Logger, opts: ContainerOptions = {}): Promise<RunningService> {
  const c = await createContainer(config, log, opts);
  const roles = new Set<Role>(config.roles);
  const readiness = new Map<string, ReadinessCheck>();
  let apiUrl: string | undefined;
  let ftpPort: number | undefined;
  try {
    if (roles.has('api')) {
      const app = await buildServer(c, { adminToken: resolveAdminToken(config.adminToken, config.dataDir), readiness, apiRoutes: [importRoutes(c)] });
      apiUrl = await app.listen({ port: config.port, host: config.host });
      c.onClose(() => app.close());
      const purge = setInterval(() => {
        c.maintenance.purgeTestData().catch((err) => log.error({ err }, 'test data purge failed'));
        c.idempotency.purgeExpired().catch((err) => log.error({ err }, 'idempotency purge failed'));
      }, 3_600_000);
      purge.unref();
      c.onClose(() => clearInterval(purge));
      log.info({ url: apiUrl, database: c.db.kind }, 'api listening');
    }
    if (roles.has('worker')) {
      const workers = await startIntakeWorkers(c);
      c.onClose(() => workers.close());
    }
    if (roles.has('ftp')) {
      // registered last, so it closes first: no new uploads while the workers stop
      // loaded only here: processes without the ftp role do not carry ftp-srv and its dependencies
      const { startFtpRole } = await import('../channels/ftp/ftp-role.ts');
      const ftp = await startFtpRole(c, c.intake, { readiness });
      if (ftp) c.onClose(() => ftp.stop(config.shutdownGraceMs));
      ftpPort = ftp?.port;
    }
  } catch (e) {
    await c.close();
    throw e;
  }
  return { container: c, intake: c.intake, apiUrl, ftpPort, stop: () => c.close() };
}
