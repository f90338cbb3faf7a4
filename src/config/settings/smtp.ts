// The SMTP receiver (docs/mail.md): where it listens and an MX's limits.
import { Type } from '../typebox.ts';
import { hostPorts, listenAddress, setting, text, whole } from '../setting-types.ts';

export const smtp = Type.Object(
  {
    smtpListen: setting(listenAddress(), {
      env: 'SMTP_LISTEN',
      default: '127.0.0.1:2525',
      doc: 'Where the SMTP receiver listens (host:port); off: the smtp role does not run. Production: 0.0.0.0:25 behind the MX record.',
    }),
    smtpHostname: setting(text('host name'), {
      env: 'SMTP_HOSTNAME',
      example: 'mx.example.com',
      doc: "The name in the greeting and the verdicts' authserv-id. Unset: this machine's host name.",
    }),
    smtpMaxConnections: setting(whole(1, 100_000), { env: 'SMTP_MAX_CONNECTIONS', default: '200', doc: 'Connections at once; more: 421.' }),
    smtpMaxConnectionsPerIp: setting(whole(1, 10_000), {
      env: 'SMTP_MAX_CONNECTIONS_PER_IP',
      default: '10',
      doc: 'Connections at once from one address; more: 421.',
    }),
    smtpMessagesPerSenderPerHour: setting(whole(1, 1_000_000), {
      env: 'SMTP_MESSAGES_PER_SENDER_PER_HOUR',
      default: '300',
      doc: 'Messages per envelope sender (or client address for bounces) per hour; more: 450 at MAIL FROM.',
    }),
    smtpIdleTimeoutMs: setting(whole(100), { env: 'SMTP_IDLE_TIMEOUT_MS', default: '60000', doc: 'A silent client is disconnected (421).' }),
    smtpDataTimeoutMs: setting(whole(100), {
      env: 'SMTP_DATA_TIMEOUT_MS',
      default: '600000',
      doc: 'The whole of one DATA (354 to the final dot), however steadily its bytes trickle; past it 451 4.4.2, the connection closed, nothing kept.',
    }),
    smtpMaxPendingMessages: setting(whole(1, 10_000), {
      env: 'SMTP_MAX_PENDING_MESSAGES',
      default: '64',
      doc: 'Messages being checked and committed at once; more: 451 after DATA, and the sender retries.',
    }),
    smtpProcessConcurrency: setting(whole(1, 256), {
      env: 'SMTP_PROCESS_CONCURRENCY',
      default: '16',
      doc: 'With the worker role in the same process: messages it committed that it hands to the mail pipeline itself at once (the others wait in memory, or go to their job). Measured on bench:smtp: 8 left the pipeline behind the receiver.',
    }),
    smtpReconcileAfterMs: setting(whole(1000, 86_400_000), {
      env: 'SMTP_RECONCILE_AFTER_MS',
      default: '30000',
      doc: 'A committed message still unprocessed this long after its commit gets its job again from the reconciler (its job lost with Redis, or never queued); a queued one is not doubled.',
    }),
    dnsServers: setting(hostPorts(), {
      env: 'DNS_SERVERS',
      example: '127.0.0.1:53',
      doc: "Resolvers (host:port,...) for SPF, DKIM and DMARC. Unset: the system's.",
    }),
    dnsCacheMs: setting(whole(0, 3_600_000), {
      env: 'DNS_CACHE_MS',
      default: '60000',
      doc: 'How long the DNS answers of those look-ups (and "no such record") are kept in the process; failures never are. 0: not kept.',
    }),
  },
  { title: 'SMTP receiver' },
);
