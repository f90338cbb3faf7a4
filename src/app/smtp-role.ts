// The `smtp` role: our own SMTP receiver on SMTP_LISTEN, STARTTLS with TLS_CERT/TLS_KEY (or the
// self-signed certificate FTPS uses), committing each message before its 250 and queueing its
// job on the mail queue; the worker role's mail worker (smtp-workers.ts) processes it.
import fs from 'node:fs';
import os from 'node:os';
import type { Container } from './container.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { ReplySender } from '../channels/mail/mail-feedback.ts';
import { ensureSelfSignedCert } from '../channels/ftp/self-signed-cert.ts';
import { senderCheck } from '../channels/mail/sender-checks.ts';
import { enqueueSmtpMessage } from '../channels/mail/smtp-delivery.ts';
import { SmtpReceiver, type RecipientState } from '../channels/mail/smtp-receiver.ts';

export async function startSmtpRole(c: Container, opts: { readiness?: Map<string, ReadinessCheck>; /** a reply transport other than SMTP_URL's */ replySender?: ReplySender } = {}): Promise<SmtpReceiver | undefined> {
  const { config } = c;
  const log = c.log.child({ role: 'smtp' });
  const listen = config.smtpListen;
  if (listen === 'off') {
    log.info('smtp role is off: SMTP_LISTEN=off');
    return undefined;
  }
  let files = config.tlsCert && config.tlsKey ? { cert: config.tlsCert, key: config.tlsKey } : undefined;
  try {
    files ??= await ensureSelfSignedCert(config.dataDir);
  } catch (err) {
    log.error({ err: (err as Error).message }, 'could not make a self-signed certificate: SMTP without STARTTLS');
  }
  const tls = files ? { cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) } : undefined;
  const hostname = config.smtpHostname ?? os.hostname();
  const queue = c.queues.queue('mail');
  const recipient = async (address: string): Promise<RecipientState> => {
    const scope = await c.accounts.findByImportAddress(address);
    if (!scope) return 'unknown';
    return (await c.accounts.isDisabled(scope.accountId)) ? 'disabled' : 'ok';
  };
  const receiver = new SmtpReceiver(
    {
      host: listen.host,
      port: listen.port,
      hostname,
      tls,
      maxMessageBytes: config.mailMaxMessageBytes,
      maxConnections: config.smtpMaxConnections,
      maxConnectionsPerIp: config.smtpMaxConnectionsPerIp,
      messagesPerSenderPerHour: config.smtpMessagesPerSenderPerHour,
      idleTimeoutMs: config.smtpIdleTimeoutMs,
      maxPending: config.smtpMaxPendingMessages,
    },
    {
      recipient,
      check: senderCheck({ dnsServers: config.dnsServers, hostname }),
      commit: (message) => c.mailRepos.smtp.insert(c.db, message),
      // committed already: a job that cannot be queued now is queued by the reconciler
      committed: (id) => void enqueueSmtpMessage(queue, id).catch((err) => log.warn({ err: (err as Error).message, smtpMessage: id }, 'smtp message committed but not queued: the reconciler queues it')),
      log,
    },
  );
  await receiver.listen();
  // replies to senders: the mail role sends them when it runs; without it (SMTP only), this role
  if (config.smtpUrl && !(config.roles.includes('mail') && config.imapUrl)) {
    const [{ buildMailFeedback }, { MailMetrics }, { smtpReplySender }] = await Promise.all([
      import('./mail-feedback-part.ts'), import('../channels/mail/mail-metrics.ts'), import('../channels/mail/smtp-sender.ts'),
    ]);
    const feedback = buildMailFeedback(c, config, c.intake, opts.replySender ?? smtpReplySender(config.smtpUrl), new MailMetrics(c.metrics.registry), log);
    feedback.start();
    c.onStop('intake', 'smtp replies', () => feedback.stop());
  }
  opts.readiness?.set('smtp', async () => {
    if (!receiver.ready) throw new Error('SMTP receiver not listening');
  });
  c.onStop('intake', 'smtp', (deadline) => receiver.stop(Math.max(0, deadline - Date.now())));
  log.info({ address: `${listen.host}:${receiver.port}`, hostname, tls: tls ? (config.tlsCert ? 'TLS_CERT' : 'self-signed') : 'none', maxMessageBytes: config.mailMaxMessageBytes }, 'smtp listening');
  return receiver;
}
