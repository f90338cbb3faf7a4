// Starts the configured roles in this process over one container, and stops them in order:
// intake first (API, FTP, mail: nothing new comes in), then workers (in-flight jobs finish or
// are handed back), then queues; the container closes Redis and the database last.
import type { FastifyInstance } from 'fastify';
import type { Config, Role } from '../config/config.ts';
import type { MailRole } from '../channels/mail/mail-role.ts';
import { buildServer } from '../http/server.ts';
import { importRoutes } from '../http/routes/imports.ts';
import { startIntakeWorkers } from '../intake/queue/intake-workers.ts';
import { ftpMetrics } from '../channels/ftp/ftp-metrics.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import { metricsPlugin } from '../ops/metrics-route.ts';
import { intakeRecordLink, intakeView } from '../ops/intake-view.ts';
import { observeMailPoller } from '../ops/channel-metrics.ts';
import { buildOpsServer } from '../ops/ops-server.ts';
import { queueDashboard } from '../ops/queue-dashboard.ts';
import { settledBefore } from '../ops/shutdown.ts';
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
  /** the FTP server's port, when the ftp role runs */
  ftpPort?: number;
  /** where /healthz, /readyz and /metrics answer (the API's address, or the OPS_PORT listener's) */
  httpUrl?: string;
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
  if (config.analyzeIntervalMs > 0) {
    const analyze = setInterval(() => {
      c.maintenance.refreshStatistics().then(
        (tables) => tables.length && log.debug({ tables }, 'planner statistics refreshed'),
        (err) => log.warn({ err }, 'planner statistics refresh failed'),
      );
    }, config.analyzeIntervalMs);
    analyze.unref();
    c.onClose(() => clearInterval(analyze));
  }
  let apiUrl: string | undefined;
  let httpUrl: string | undefined;
  let mail: MailRole | undefined;
  let ftpPort: number | undefined;
  try {
    if (roles.has('api')) {
      const adminToken = resolveAdminToken(config.adminToken, config.dataDir);
      const app = await buildServer(c, {
        adminToken,
        readiness,
        apiRoutes: [importRoutes(c)],
        // registered only when the admin API is on; each guards itself with the admin token
        adminPlugins: adminToken ? [queueDashboard({ queues: () => [c.intakeQueue], adminToken, jobLink: intakeRecordLink }), intakeView(c, adminToken)] : [],
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
    } else if (config.opsPort !== undefined) {
      // no API here: health and metrics answer on their own port, until the very end of the stop
      // (not on PORT: several worker processes on one host would fight over it)
      const ops = await buildOpsServer(c, readiness);
      httpUrl = await ops.listen({ port: config.opsPort, host: config.host });
      c.onClose(() => closeHttp(ops, Date.now() + 1000));
      log.info({ url: httpUrl, roles: config.roles }, 'health and metrics listening');
    } else {
      log.info({ roles: config.roles }, 'no health or metrics listener in this process (no api role; set OPS_PORT for one)');
    }
    if (roles.has('worker')) {
      const workers = await startIntakeWorkers(c);
      c.metrics.queues.observeWorker(workers.worker);
      readiness.set('worker', async () => {
        if (!workers.worker.isRunning()) throw new Error('the intake worker is not running');
      });
      c.onStop('workers', 'intake workers', async (deadline) => {
        // in-flight jobs finish; at the deadline they are left to BullMQ's stalled-job check,
        // which gives them to another worker once their lock expires (attaching is idempotent)
        if (!(await settledBefore(workers.close(), deadline))) log.warn('intake jobs still running at the end of the grace period; left to another worker');
      });
    }
    if (roles.has('mail')) {
      // loaded only here, like the ftp role: other processes do not carry imapflow, mailparser, nodemailer
      const { startMailRole } = await import('../channels/mail/mail-role.ts');
      mail = startMailRole(c, { receiver: c.intake, records: c.intake });
      if (mail) {
        const role = mail;
        const state = observeMailPoller(c.metrics.imap, role.poller);
        readiness.set('mail', async () => {
          if (state() !== 'connected') throw new Error('the IMAP poller is not connected');
        });
        // the poller finishes the batch in hand and releases unfinished claims (the messages stay
        // in the mailbox and are taken again after a restart)
        c.onStop('intake', 'mail', async (deadline) => {
          if (!(await settledBefore(role.stop(), deadline))) log.warn('the mail poller did not stop within the grace period');
        });
      }
    }
    if (roles.has('ftp')) {
      // the process's FTP counters (one FTP server per process), read by /metrics at scrape time
      c.metrics.ftp.observe(ftpMetrics);
      // loaded only here: processes without the ftp role do not carry ftp-srv and its dependencies
      const { startFtpRole } = await import('../channels/ftp/ftp-role.ts');
      const ftp = await startFtpRole(c, c.intake, { readiness, metrics: ftpMetrics });
      // stops accepting; running uploads finish (staged and acknowledged) until the deadline
      if (ftp) c.onStop('intake', 'ftp', (deadline) => ftp.stop(Math.max(0, deadline - Date.now())));
      // asked for but refused to start (no certificate and plain FTP not allowed): not ready
      else readiness.set('ftp', async () => { throw new Error('the FTP server did not start: set TLS_CERT and TLS_KEY, or FTP_ALLOW_PLAIN=true'); });
      ftpPort = ftp?.port;
    }
  } catch (e) {
    await c.close();
    throw e;
  }
  return {
    container: c,
    intake: c.intake,
    apiUrl,
    mail,
    ftpPort,
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
