// Starts the configured roles in this process over one container, and stops them in order.
import type { Config, Role } from '../config/config.ts';
import { startMailRole, type MailRole } from '../channels/mail/mail-role.ts';
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
  /** the mail role, when it runs (IMAP_URL set) */
  mail?: MailRole;
  stop(): Promise<void>;
}

export async function startService(config: Config, log: Logger, opts: ContainerOptions = {}): Promise<RunningService> {
  const c = await createContainer(config, log, opts);
  const roles = new Set<Role>(config.roles);
  const readiness = new Map<string, ReadinessCheck>();
  let apiUrl: string | undefined;
  let mail: MailRole | undefined;
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
    if (roles.has('mail')) {
      mail = startMailRole(c, { receiver: c.intake, records: c.intake });
      if (mail) c.onClose(() => mail!.stop());
    }
  } catch (e) {
    await c.close();
    throw e;
  }
  return { container: c, intake: c.intake, apiUrl, mail, stop: () => c.close() };
}
