// The `smtp` role: our own SMTP receiver on SMTP_LISTEN, STARTTLS with TLS_CERT/TLS_KEY (or the
// self-signed certificate FTPS uses), committing each message before its 250 (the messages of
// sessions that end at once in one statement); the worker role of
// the same process then runs it through the mail pipeline at once, else (no worker role here, or
// it is busy) its job on the mail queue goes to a worker (smtp-workers.ts).
import fs from 'node:fs';
import os from 'node:os';
import type { Container } from './container.ts';
import type { Scope } from '../domain/scope.ts';
import type { ReadinessCheck } from '../http/routes/health.ts';
import type { ReplySender } from '../channels/mail/mail-feedback.ts';
import { ensureSelfSignedCert } from '../channels/ftp/self-signed-cert.ts';
import { senderCheck } from '../channels/mail/sender-checks.ts';
import { enqueueSmtpMessage } from '../channels/mail/smtp-queue.ts';
import { SmtpReceiver, type RecipientState } from '../channels/mail/smtp-receiver.ts';
import { smtpRawHandoff } from './smtp-raw-handoff.ts';
import { localSmtpWorkers } from './smtp-workers.ts';
import type { CommittedMessage } from '../channels/mail/smtp-delivery.ts';
import { Batcher, failed, ok } from '../intake/batcher.ts';
import type { CommittedRow, PutMessage, SmtpMessageInput } from '../channels/mail/smtp-message-repository.ts';

export async function startSmtpRole(
  c: Container,
  opts: { readiness?: Map<string, ReadinessCheck> /** a reply transport other than SMTP_URL's */; replySender?: ReplySender } = {},
): Promise<SmtpReceiver | undefined> {
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
  const handoff = config.roles.includes('worker') ? smtpRawHandoff(c) : undefined;
  // an import address names the same account for ever: remembered for a minute once found (one
  // statement less per message); an unknown one is asked again each time (it may be new)
  const known = new Map<string, { scope: Scope; until: number }>();
  const recipient = async (address: string): Promise<RecipientState> => {
    const hit = known.get(address);
    const scope = hit && hit.until > Date.now() ? hit.scope : await c.accounts.findByImportAddress(address);
    if (!scope) return 'unknown';
    if (!hit || hit.until <= Date.now()) {
      if (known.size > 10_000) known.clear();
      known.set(address, { scope, until: Date.now() + 60_000 });
    }
    return (await c.accounts.isDisabled(scope.accountId)) ? 'disabled' : 'ok';
  };
  // the claims each commit made, for the `committed` that follows it
  const preClaimed = new WeakMap<SmtpMessageInput, NonNullable<CommittedMessage['preClaimed']>>();
  const commits = new Batcher<PutMessage, CommittedRow>(
    async (list) => {
      try {
        return (await c.mailRepos.smtp.insertMany(c.db, list)).map(ok);
      } catch (err) {
        if (list.length === 1) throw err;
        // nothing of the group was committed: each alone, so one bad message fails only its sender
        log.warn({ err: (err as Error).message, messages: list.length }, 'smtp group commit failed: committing its messages one by one');
        return Promise.all(list.map((m) => c.mailRepos.smtp.insertMany(c.db, [m]).then(([r]) => ok(r), failed<CommittedRow>)));
      }
    },
    { maxItems: 64, maxBytes: Infinity },
    () => 0,
  );
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
      dataTimeoutMs: config.smtpDataTimeoutMs,
      maxPending: config.smtpMaxPendingMessages,
    },
    {
      recipient,
      check: senderCheck({ dnsServers: config.dnsServers, dnsCacheMs: config.dnsCacheMs, hostname }),
      // each session's raw message into the store at once, then the rows of those ready
      // together, by group commit: one statement and one commit for them; each 250 still only
      // after its own row is committed (a failed group fails each of its messages: 451)
      // with this process's own run's claims, which that statement makes too (smtp-workers.ts)
      commit: async (message) => {
        const claims = localSmtpWorkers(c)?.preClaims(message);
        const at = Date.now();
        const stored = await commits.submit({ ...(await c.mailRepos.smtp.putRaw(message)), claims });
        if (claims && stored.claimed) preClaimed.set(message, { claims, made: stored.claimed, at });
        return stored;
      },
      // committed already: run here when this process has the worker role (the message and its
      // bytes are in memory); else, or when that run failed, its job. A job that cannot be
      // queued is queued by the reconciler; this process's own mail worker takes the bytes from
      // memory (smtp-raw-handoff.ts)
      committed: ({ id, duplicate }, message) => {
        const queue = () => {
          if (handoff && !duplicate) handoff.put(id, message.raw);
          void enqueueSmtpMessage(c.jobs, id).catch((err) =>
            log.warn({ err: (err as Error).message, smtpMessage: id }, 'smtp message committed but not queued: the reconciler queues it'),
          );
        };
        const row = { id, dedupe_key: message.dedupeKey, rcpt_to: message.rcptTo, verdict: message.verdict, preClaimed: preClaimed.get(message) };
        if (duplicate || !localSmtpWorkers(c)?.runCommitted(row, message.raw, queue)) queue();
      },
      log,
    },
  );
  await receiver.listen();
  // replies to senders: the mail role sends them when it runs; without it (SMTP only), this role
  if (config.smtpUrl && !(config.roles.includes('mail') && config.imapUrl)) {
    const [{ buildMailFeedback }, { MailMetrics }, { smtpReplySender }] = await Promise.all([
      import('./mail-feedback-part.ts'),
      import('../channels/mail/mail-metrics.ts'),
      import('../channels/mail/smtp-sender.ts'),
    ]);
    const feedback = buildMailFeedback(c, config, c.intake, opts.replySender ?? smtpReplySender(config.smtpUrl), new MailMetrics(c.metrics.registry), log);
    feedback.start();
    c.onStop('intake', 'smtp replies', () => feedback.stop());
  }
  opts.readiness?.set('smtp', async () => {
    if (!receiver.ready) throw new Error('SMTP receiver not listening');
  });
  c.onStop('intake', 'smtp', (deadline) => receiver.stop(Math.max(0, deadline - Date.now())));
  log.info(
    {
      address: `${listen.host}:${receiver.port}`,
      hostname,
      tls: tls ? (config.tlsCert ? 'TLS_CERT' : 'self-signed') : 'none',
      maxMessageBytes: config.mailMaxMessageBytes,
    },
    'smtp listening',
  );
  return receiver;
}
