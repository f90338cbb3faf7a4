// Starts the configured roles in this process over one container, and stops them in order:
// intake first (API, FTP, SFTP, mail, SMTP: nothing new comes in), then workers (in-flight jobs finish or
// are handed back), then queues; the container closes Redis and the database last.
import type { FastifyInstance } from 'fastify';
import type { Config, Role } from '../config/config.ts';
import { isLoopback } from '../config/public-url.ts';
import type { MailRole } from './mail-role.ts';
import { buildServer } from '../http/server.ts';
import { dashboard } from '../http/dashboard/dashboard.ts';
import { startIntakeWorkers } from './intake-workers.ts';
import { startWebhookWorkers } from './webhook-workers.ts';
import { startPeriodicWork } from './periodic-work.ts';
import { TransferMetrics } from '../channels/transfer/transfer-metrics.ts';
import { metricsPlugin } from '../http/routes/metrics-route.ts';
import { intakeRecordLink, intakeView } from '../http/routes/intake-view.ts';
import { observeMailPoller } from '../ops/channel-metrics.ts';
import { observeCertificate, observeDataDir, observeReadiness } from '../ops/service-gauges.ts';
import { buildOpsServer } from '../http/ops-server.ts';
import { queueDashboard } from '../http/plugins/queue-dashboard.ts';
import { settledBefore } from '../platform/timeouts.ts';
import { resolveAdminToken } from '../platform/admin-token.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import { createContainer, type Container, type ContainerOptions } from './container.ts';
import { coreReadiness } from './core-readiness.ts';
import type { Logger } from '../platform/logger.ts';

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
  /** the SFTP server's port, when the sftp role runs */
  sftpPort?: number;
  /** the SMTP receiver's port, when the smtp role runs (SMTP_LISTEN not off) */
  smtpPort?: number;
  /** where /healthz, /readyz and /metrics answer (the API's address, or the OPS_PORT listener's) */
  httpUrl?: string;
  /** stops every role in order; the grace period ends at `deadline` (default: SHUTDOWN_GRACE_MS from now) */
  stop(deadline?: number): Promise<void>;
}

export async function startService(config: Config, log: Logger, opts: ContainerOptions = {}): Promise<RunningService> {
  const roles = new Set<Role>(config.roles);
  // the SFTP host keys (made once into DATA_DIR, in libuv's threads) while the database opens and
  // migrates; the API shows their fingerprints, the sftp role serves them
  const hostKeys =
    roles.has('api') || roles.has('sftp')
      ? import('../channels/sftp/host-keys.ts').then((m) => m.ensureHostKeys({ dataDir: config.dataDir, hostKey: config.sftpHostKey }))
      : undefined;
  hostKeys?.catch(() => {}); // awaited by the role that needs them; a failed container start must not leave it unhandled
  const c = await createContainer(config, log, opts);
  const readiness = coreReadiness(c);
  // /metrics runs the same checks at scrape time, and tells the free space and the certificate's end
  observeReadiness(c.metrics.registry, readiness);
  observeDataDir(c.metrics.registry, config.dataDir);
  observeCertificate(c.metrics.registry, config.tlsCert);
  let stopping = false;
  // Every role asked for is reported, and not ready until it has started: the health listener
  // answers before the FTP and SFTP servers listen. Each role replaces its check once it runs.
  const pending = [...roles].filter(
    (r) => r === 'ftp' || r === 'sftp' || r === 'worker' || (r === 'mail' && config.imapUrl) || (r === 'smtp' && config.smtpListen !== 'off'),
  );
  if (roles.has('ftp') && config.ftpsImplicitPort !== undefined) pending.push('ftps-implicit' as Role);
  for (const name of pending)
    readiness.set(name, async () => {
      throw new Error('starting');
    });
  // A draining process answers /readyz with 503 so load balancers stop sending it work.
  readiness.set('lifecycle', async () => {
    if (stopping) throw new Error('shutting down');
  });
  let apiUrl: string | undefined;
  let httpUrl: string | undefined;
  let mail: MailRole | undefined;
  let ftpPort: number | undefined;
  let sftpPort: number | undefined;
  let smtpPort: number | undefined;
  try {
    if (roles.has('api')) {
      // TOTP keys: those still in clear (written before they were encrypted) are sealed now
      const sealed = await c.users.prepareSecrets();
      if (sealed) log.info({ sealed }, 'TOTP keys stored in clear were encrypted with SECRETS_KEY');
      const adminToken = resolveAdminToken(config.adminToken, config.dataDir);
      const app = await buildServer(c, {
        adminToken,
        // so users can verify what their client shows
        sftpHostKeys: (await hostKeys!).fingerprints,
        readiness,
        // registered only when the admin API is on; each guards itself with the admin token
        adminPlugins: adminToken
          ? [queueDashboard({ jobs: c.jobs, adminToken, publicUrl: c.config.publicUrl, jobLink: intakeRecordLink }), intakeView(c, adminToken)]
          : [],
        plugins: [metricsPlugin(c.metrics, config.metricsToken), dashboard(c)],
      });
      apiUrl = httpUrl = await app.listen({ port: config.port, host: config.host });
      config.links.listening(apiUrl); // without PUBLIC_URL (loopback only), links name the port PORT=0 got
      if (!config.tlsCert && !isLoopback(config.host)) {
        log.warn(
          { host: config.host },
          `HOST=${config.host} serves the API over plain HTTP beyond this machine: API keys travel in clear unless a TLS-terminating proxy stands in front (or set TLS_CERT and TLS_KEY)`,
        );
      }
      c.onStop('intake', 'api', (deadline) => closeHttp(app, deadline));
      log.info({ url: apiUrl, database: c.db.kind }, 'api listening');
    } else if (config.opsPort !== undefined) {
      // no API here: health and metrics answer on their own port, until the very end of the stop
      // (not on PORT: several worker processes on one host would fight over it)
      const ops = await buildOpsServer(log, readiness, metricsPlugin(c.metrics, config.metricsToken));
      httpUrl = await ops.listen({ port: config.opsPort, host: config.host });
      c.onClose(() => closeHttp(ops, Date.now() + 1000));
      log.info({ url: httpUrl, roles: config.roles }, 'health and metrics listening');
    } else {
      log.info({ roles: config.roles }, 'no health or metrics listener in this process (no api role; set OPS_PORT for one)');
    }
    if (roles.has('worker')) {
      const workers = await startIntakeWorkers(c);
      c.metrics.queues.observeWorker(workers.events);
      const webhookWorkers = startWebhookWorkers(c);
      // reconciler, purges, webhook sweep, ANALYZE: once per installation (BullMQ job schedulers)
      const periodic = await startPeriodicWork(c);
      c.onStop('workers', 'periodic work', async (deadline) => {
        if (!(await settledBefore(periodic.close(), deadline))) log.warn('a periodic task still running at the end of the grace period');
      });
      c.onStop('workers', 'webhook workers', async (deadline) => {
        // a delivery cut short is retried by BullMQ's stalled-job check: at-least-once
        if (!(await settledBefore(webhookWorkers.close(), deadline))) log.warn('webhook deliveries still running at the end of the grace period');
      });
      // the SMTP receiver's messages (they may come from smtp nodes elsewhere)
      const { startSmtpWorkers } = await import('./smtp-workers.ts');
      const smtpWorkers = startSmtpWorkers(c);
      c.onStop('workers', 'smtp message workers', async (deadline) => {
        if (!(await settledBefore(smtpWorkers.close(), deadline)))
          log.warn('smtp message jobs still running at the end of the grace period; left to another worker');
        await smtpWorkers.release();
      });
      readiness.set('worker', async () => {
        if (!workers.isRunning()) throw new Error('the intake worker is not running');
      });
      c.onStop('workers', 'intake workers', async (deadline) => {
        // in-flight jobs finish; at the deadline they are left to BullMQ's stalled-job check,
        // which gives them to another worker once their lock expires (attaching is idempotent)
        if (!(await settledBefore(workers.close(), deadline))) log.warn('intake jobs still running at the end of the grace period; left to another worker');
      });
    }
    if (roles.has('mail') && config.imapUrl && /@example\.com$/i.test(config.importAddress)) {
      log.warn(
        { importAddress: config.importAddress },
        'IMPORT_ADDRESS is still the example invoices@example.com: accounts get import addresses nobody can mail to; set IMPORT_ADDRESS to the mailbox IMAP_URL reads',
      );
    }
    if (roles.has('mail') && !config.imapUrl) log.child({ role: 'mail' }).info('mail role is off: IMAP_URL is not set');
    else if (roles.has('mail')) {
      // loaded only here, like the ftp role: other processes (and one without a mailbox) do not
      // carry imapflow, mailparser, nodemailer
      const { startMailRole } = await import('./mail-role.ts');
      mail = startMailRole(c, { receiver: c.intake, records: c.intake });
      if (mail) {
        const role = mail;
        const state = observeMailPoller(c.metrics.imap, role.poller);
        readiness.set('mail', async () => {
          if (state() !== 'connected') throw new Error(['the IMAP poller is not connected', role.poller.problem()].filter(Boolean).join(': '));
        });
        // the poller finishes the batch in hand and releases unfinished claims (the messages stay
        // in the mailbox and are taken again after a restart)
        c.onStop('intake', 'mail', async (deadline) => {
          if (!(await settledBefore(role.stop(), deadline))) log.warn('the mail poller did not stop within the grace period');
        });
      }
    }
    if (roles.has('ftp')) {
      // loaded only here: processes without the ftp role do not carry ftp-srv and its dependencies
      const { startFtpRole } = await import('./ftp-role.ts');
      const ftp = await startFtpRole(c, c.intake, { readiness, metrics: new TransferMetrics('ftp', c.metrics.registry) });
      // stops accepting; running uploads finish (staged and acknowledged) until the deadline
      if (ftp) c.onStop('intake', 'ftp', (deadline) => ftp.stop(Math.max(0, deadline - Date.now())));
      // asked for but refused to start (no certificate and plain FTP not allowed): not ready
      else
        readiness.set('ftp', async () => {
          throw new Error('the FTP server did not start: set TLS_CERT and TLS_KEY, or FTP_ALLOW_PLAIN=true');
        });
      ftpPort = ftp?.port;
    }
    if (roles.has('sftp')) {
      // loaded only here: processes without the sftp role do not carry the SSH server
      const { startSftpRole } = await import('./sftp-role.ts');
      const sftp = await startSftpRole(c, c.intake, { readiness, metrics: new TransferMetrics('sftp', c.metrics.registry), hostKeys: hostKeys! });
      // stops accepting; open uploads finish (staged, their close answered) until the deadline
      c.onStop('intake', 'sftp', (deadline) => sftp.stop(Math.max(0, deadline - Date.now())));
      sftpPort = sftp.port;
    }
    if (roles.has('smtp')) {
      // loaded only here: processes without the smtp role do not carry smtp-server and mailauth
      const { startSmtpRole } = await import('./smtp-role.ts');
      smtpPort = (await startSmtpRole(c, { readiness }))?.port;
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
    sftpPort,
    smtpPort,
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
