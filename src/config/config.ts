// The service's configuration: one typed schema, read once from the environment at start-up.
// Every problem is reported together, with the variable's name, before anything starts.
import { amount, bool, hostPorts, int, listenAddress, oneOf, optional, portRange, str, trustProxy, url, wholeSeconds, type Parser, type Setting } from './parsers.ts';
import { PublicLinks, publicUrlProblems } from './public-url.ts';

const secretsKey: Parser<string> = (raw, name) => {
  if (raw.trim().length < 32) throw new Error(`${name} must be at least 32 random characters (e.g. openssl rand -base64 32)`);
  return raw.trim();
};

const roles = (): Parser<Role[]> => (raw, name) => {
  const list = raw.split(',').map((r) => r.trim()).filter(Boolean);
  const bad = list.filter((r) => !ALL_ROLES.includes(r as Role));
  if (bad.length || list.length === 0) throw new Error(`${name} must list roles among ${ALL_ROLES.join(', ')}, got "${raw}"`);
  return [...new Set(list)] as Role[];
};

export const ALL_ROLES = ['api', 'ftp', 'sftp', 'mail', 'smtp', 'worker'] as const;
export type Role = (typeof ALL_ROLES)[number];

const schema = {
  roles: { env: 'ROLES', parse: roles(), fallback: [...ALL_ROLES] },
  // unset: 127.0.0.1 without TLS_CERT (plain HTTP stays on this machine), 0.0.0.0 with it
  host: { env: 'HOST', parse: str(), fallback: '' },
  port: { env: 'PORT', parse: int(0, 65535), fallback: 8080 },
  // X-Forwarded-For/-Proto/-Host are believed only from these proxies (off: never)
  trustProxy: { env: 'TRUST_PROXY', parse: trustProxy(), fallback: false as false | number | string[] },
  // the base of every link sent or shown (public-url.ts); unset: the API's own address, on loopback only
  publicUrl: { env: 'PUBLIC_URL', parse: optional(url('http', 'https')) },
  // a request whose headers and body have not all arrived by then is answered 408 (slow clients
  // cannot hold connections open); long enough for a 5 MB PDF in Base64 over a slow line
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', parse: int(100), fallback: 120_000 },
  dataDir: { env: 'DATA_DIR', parse: str(), fallback: './data' },
  databaseUrl: { env: 'DATABASE_URL', parse: optional(url('postgres', 'postgresql')), secret: true },
  databasePoolSize: { env: 'DATABASE_POOL_SIZE', parse: int(1, 500), fallback: 20 },
  // 'transaction': a pooler in transaction mode (PgBouncer) stands in front; no named prepared statements
  databasePooler: { env: 'DATABASE_POOLER', parse: oneOf('none', 'transaction'), fallback: 'none' as 'none' | 'transaction' },
  // how often a process checks for tables whose planner statistics are stale (0: never)
  analyzeIntervalMs: { env: 'ANALYZE_INTERVAL_MS', parse: int(0), fallback: 10_000 },
  // unset: REDIS_DEFAULT_URL if a Redis answers there, else a private redis-server in DATA_DIR (main.ts)
  redisUrl: { env: 'REDIS_URL', parse: url('redis', 'rediss'), fallback: '', secret: true },
  redisDefaultUrl: { env: 'REDIS_DEFAULT_URL', parse: url('redis'), fallback: 'redis://127.0.0.1:6379' },
  // unset (''): ii-<installation id>, an id stored in the database at its first migration, so
  // that two installations on one Redis never share keys (the container resolves it)
  redisPrefix: { env: 'REDIS_PREFIX', parse: str(), fallback: '' },
  // Redis Sentinel: the sentinels (host:port,...) and the monitored primary's name; REDIS_URL's
  // host is then ignored, its user, password and db still apply to the primary
  redisSentinels: { env: 'REDIS_SENTINELS', parse: optional(hostPorts()) },
  redisSentinelName: { env: 'REDIS_SENTINEL_NAME', parse: str(), fallback: 'mymaster' },
  redisSentinelPassword: { env: 'REDIS_SENTINEL_PASSWORD', parse: optional(str()), secret: true },
  // Redis Cluster: some of its nodes (host:port,...); REDIS_URL's user and password still apply
  redisClusterNodes: { env: 'REDIS_CLUSTER_NODES', parse: optional(hostPorts()) },
  adminToken: { env: 'ADMIN_TOKEN', parse: optional(str()), secret: true },
  // where `npm run admin` finds the admin API; unset: this machine's PORT
  adminUrl: { env: 'ADMIN_URL', parse: optional(url('http', 'https')) },
  tlsCert: { env: 'TLS_CERT', parse: optional(str()) },
  tlsKey: { env: 'TLS_KEY', parse: optional(str()) },
  logLevel: { env: 'LOG_LEVEL', parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), fallback: 'info' },
  maxAmountCents: { env: 'MAX_AMOUNT', parse: amount(), fallback: 999_999_999 },
  rateLimitMax: { env: 'RATE_LIMIT_MAX', parse: int(1), fallback: 6000 },
  rateLimitWindowMs: { env: 'RATE_LIMIT_WINDOW_MS', parse: wholeSeconds(), fallback: 60_000 },
  // per-node cache of API keys and of the webhook events each scope wants (0: off); a rotation or a
  // webhook change still counts on every node within 1 s
  keyCacheMs: { env: 'KEY_CACHE_MS', parse: int(0, 60_000), fallback: 30_000 },
  testDataRetentionDays: { env: 'TEST_DATA_RETENTION_DAYS', parse: int(1, 3650), fallback: 30 },
  // the trail's entries (who changed what) are kept this long, then purged by the periodic job
  trailRetentionDays: { env: 'TRAIL_RETENTION_DAYS', parse: int(1, 36500), fallback: 3650 },
  idempotencyTtlHours: { env: 'IDEMPOTENCY_TTL_HOURS', parse: int(1, 720), fallback: 24 },
  // a request whose Idempotency-Key another running request holds waits this long for its outcome, then 409
  idempotencyWaitMs: { env: 'IDEMPOTENCY_WAIT_MS', parse: int(0, 60_000), fallback: 5000 },
  // fault injection for tests: a keyed request stops for good at this point (docs/operations.md)
  idempotencyPauseAt: { env: 'IDEMPOTENCY_PAUSE_AT', parse: optional(oneOf('before-claim', 'after-claim', 'after-effect', 'after-commit')) },
  // intake
  intakeConcurrency: { env: 'INTAKE_CONCURRENCY', parse: int(1, 256), fallback: 8 },
  intakeAttempts: { env: 'INTAKE_ATTEMPTS', parse: int(1, 10_000), fallback: 200 },
  intakeBackoffMs: { env: 'INTAKE_BACKOFF_MS', parse: int(10), fallback: 30_000 },
  intakeBackoffMaxMs: { env: 'INTAKE_BACKOFF_MAX_MS', parse: int(10), fallback: 15 * 60_000 },
  intakeMatchWindowMs: { env: 'INTAKE_MATCH_WINDOW_MS', parse: int(0), fallback: 24 * 3_600_000 },
  // evidence beyond the whole file name (docs/matching.md): each kind can be turned off
  intakeMatchEinvoice: { env: 'INTAKE_MATCH_EINVOICE', parse: bool(), fallback: true },
  intakeMatchSubject: { env: 'INTAKE_MATCH_SUBJECT', parse: bool(), fallback: true },
  intakeMatchNameToken: { env: 'INTAKE_MATCH_NAME_TOKEN', parse: bool(), fallback: true },
  intakeMatchPdfText: { env: 'INTAKE_MATCH_PDF_TEXT', parse: bool(), fallback: true },
  intakeFailedRetentionDays: { env: 'INTAKE_FAILED_RETENTION_DAYS', parse: int(1, 3650), fallback: 14 },
  reconcileIntervalMs: { env: 'RECONCILE_INTERVAL_MS', parse: int(1000), fallback: 60_000 },
  // the purges (test data, idempotency keys, dashboard sessions, mail claims, failed files' content)
  purgeIntervalMs: { env: 'PURGE_INTERVAL_MS', parse: int(1000), fallback: 3_600_000 },
  // a worker that dies holds its jobs this long before another takes them over (BullMQ lock)
  intakeLockMs: { env: 'INTAKE_LOCK_MS', parse: int(1000), fallback: 30_000 },
  pdfCheckThreads: { env: 'PDF_CHECK_THREADS', parse: int(1, 64), fallback: 1 },
  // ZIP archives (docs/intake.md): entries per archive, and the uncompressed total, which also caps
  // an archive's upload size (every channel holds an archive in memory while it is unpacked)
  zipMaxEntries: { env: 'ZIP_MAX_ENTRIES', parse: int(1, 100_000), fallback: 1000 },
  zipMaxTotalBytes: { env: 'ZIP_MAX_TOTAL_BYTES', parse: int(1024), fallback: 200 * 1024 * 1024 },
  // ftp
  ftpPort: { env: 'FTP_PORT', parse: int(0, 65535), fallback: 2121 },
  ftpHost: { env: 'FTP_HOST', parse: str(), fallback: '0.0.0.0' },
  // the FTP host name shown to account holders (GET /v2/account, dashboard); unset: PUBLIC_URL's host
  ftpPublicHost: { env: 'FTP_PUBLIC_HOST', parse: optional(str()) },
  ftpPasvUrl: { env: 'FTP_PASV_URL', parse: str(), fallback: '127.0.0.1' },
  ftpPasvRange: { env: 'FTP_PASV_RANGE', parse: portRange(), fallback: [30000, 30100] as [number, number] },
  ftpRequireTls: { env: 'FTP_REQUIRE_TLS', parse: optional(bool()) },
  // implicit FTPS (TLS from the first byte) on its own port; unset: off
  ftpsImplicitPort: { env: 'FTPS_IMPLICIT_PORT', parse: optional(int(0, 65535)) },
  ftpSelfSignedCert: { env: 'FTP_SELF_SIGNED_CERT', parse: bool(), fallback: true },
  ftpAllowPlain: { env: 'FTP_ALLOW_PLAIN', parse: bool(), fallback: false },
  ftpIdleTimeoutMs: { env: 'FTP_IDLE_TIMEOUT_MS', parse: int(1000), fallback: 300_000 },
  ftpMaxConnections: { env: 'FTP_MAX_CONNECTIONS', parse: int(1), fallback: 200 },
  ftpMaxConnectionsPerAccount: { env: 'FTP_MAX_CONNECTIONS_PER_ACCOUNT', parse: int(1), fallback: 16 },
  ftpLockoutAttempts: { env: 'FTP_LOCKOUT_ATTEMPTS', parse: int(1), fallback: 5 },
  ftpLockoutMs: { env: 'FTP_LOCKOUT_MS', parse: int(1000), fallback: 15 * 60_000 },
  // an upload that sends no byte for this long is aborted (426)
  ftpTransferTimeoutMs: { env: 'FTP_TRANSFER_TIMEOUT_MS', parse: int(1000), fallback: 60_000 },
  // how many recent uploads LIST shows
  ftpListLimit: { env: 'FTP_LIST_LIMIT', parse: int(1, 10_000), fallback: 200 },
  // how long a temporary upload (x.pdf.part) waits in memory for its rename, from any session of its account and mode
  ftpTempUploadHoldMs: { env: 'FTP_TEMP_UPLOAD_HOLD_MS', parse: int(1000), fallback: 10 * 60_000 },
  // FTP/FTPS/SFTP before login, per client address (docs/operations.md, "Limits before login")
  transferMaxUnauthenticatedPerAddress: { env: 'TRANSFER_MAX_UNAUTHENTICATED_PER_ADDRESS', parse: int(1, 10_000), fallback: 20 },
  transferConnectionsPerMinutePerAddress: { env: 'TRANSFER_CONNECTIONS_PER_MINUTE_PER_ADDRESS', parse: int(1, 100_000), fallback: 60 },
  transferHandshakeTimeoutMs: { env: 'TRANSFER_HANDSHAKE_TIMEOUT_MS', parse: int(100, 600_000), fallback: 30_000 },
  // sftp (logins, the lockout, FTP_LIST_LIMIT, FTP_TEMP_UPLOAD_HOLD_MS and FTP_MAX_CONNECTIONS_PER_ACCOUNT are FTP's)
  sftpPort: { env: 'SFTP_PORT', parse: int(0, 65535), fallback: 2222 },
  sftpHost: { env: 'SFTP_HOST', parse: str(), fallback: '0.0.0.0' },
  // a private host key file (or its PEM text); unset: Ed25519 + RSA keys generated once into DATA_DIR/sftp
  sftpHostKey: { env: 'SFTP_HOST_KEY', parse: optional(str()), secret: true },
  sftpIdleTimeoutMs: { env: 'SFTP_IDLE_TIMEOUT_MS', parse: int(1000), fallback: 300_000 },
  sftpMaxConnections: { env: 'SFTP_MAX_CONNECTIONS', parse: int(1), fallback: 200 },
  // mail
  imapUrl: { env: 'IMAP_URL', parse: optional(url('imap', 'imaps')), secret: true },
  // IMAP with OAuth 2.0 (docs/mail.md): a bearer token instead of IMAP_URL's password
  imapAuth: { env: 'IMAP_AUTH', parse: oneOf('password', 'xoauth2', 'oauthbearer'), fallback: 'password' },
  imapOauthTokenUrl: { env: 'IMAP_OAUTH_TOKEN_URL', parse: optional(url('https', 'http')) },
  imapOauthTenant: { env: 'IMAP_OAUTH_TENANT', parse: optional(str()) },
  imapOauthClientId: { env: 'IMAP_OAUTH_CLIENT_ID', parse: optional(str()) },
  imapOauthClientSecret: { env: 'IMAP_OAUTH_CLIENT_SECRET', parse: optional(str()), secret: true },
  imapOauthClientCert: { env: 'IMAP_OAUTH_CLIENT_CERT', parse: optional(str()) },
  imapOauthClientKey: { env: 'IMAP_OAUTH_CLIENT_KEY', parse: optional(str()), secret: true },
  imapOauthRefreshToken: { env: 'IMAP_OAUTH_REFRESH_TOKEN', parse: optional(str()), secret: true },
  imapOauthScope: { env: 'IMAP_OAUTH_SCOPE', parse: optional(str()) },
  /** the authserv-id of the mailbox server's own Authentication-Results header (docs/mail.md, "Who sent it"); unset: no header is believed */
  imapAuthservId: { env: 'IMAP_AUTHSERV_ID', parse: optional(str()) },
  importAddress: { env: 'IMPORT_ADDRESS', parse: str(), fallback: 'invoices@example.com' },
  smtpUrl: { env: 'SMTP_URL', parse: optional(url('smtp', 'smtps')), secret: true },
  mailProcessedMailbox: { env: 'MAIL_PROCESSED_MAILBOX', parse: str(), fallback: 'Processed' },
  mailFailedMailbox: { env: 'MAIL_FAILED_MAILBOX', parse: str(), fallback: 'Failed' },
  // automatic mail without files (bounces, read receipts, out-of-office replies): not failed, moved here
  mailAutomaticMailbox: { env: 'MAIL_AUTOMATIC_MAILBOX', parse: str(), fallback: 'Automatic' },
  mailIdleDelayMs: { env: 'MAIL_IDLE_DELAY_MS', parse: int(10, 60_000), fallback: 250 },
  mailPollIntervalMs: { env: 'MAIL_POLL_INTERVAL_MS', parse: int(100), fallback: 15_000 },
  mailWatchdogIntervalMs: { env: 'MAIL_WATCHDOG_INTERVAL_MS', parse: int(100), fallback: 60_000 },
  mailWatchdogTimeoutMs: { env: 'MAIL_WATCHDOG_TIMEOUT_MS', parse: int(100), fallback: 15_000 },
  mailCommandTimeoutMs: { env: 'MAIL_COMMAND_TIMEOUT_MS', parse: int(1000), fallback: 120_000 },
  mailReconnectMinMs: { env: 'MAIL_RECONNECT_MIN_MS', parse: int(10), fallback: 1000 },
  mailReconnectMaxMs: { env: 'MAIL_RECONNECT_MAX_MS', parse: int(10), fallback: 60_000 },
  mailMaxMessageBytes: { env: 'MAIL_MAX_MESSAGE_BYTES', parse: int(1024), fallback: 25 * 1024 * 1024 },
  mailBatchSize: { env: 'MAIL_BATCH_SIZE', parse: int(1, 1000), fallback: 50 },
  mailConcurrency: { env: 'MAIL_CONCURRENCY', parse: int(1, 64), fallback: 8 },
  mailClaimLeaseMs: { env: 'MAIL_CLAIM_LEASE_MS', parse: int(1000), fallback: 120_000 },
  mailRetentionDays: { env: 'MAIL_RETENTION_DAYS', parse: int(1, 3650), fallback: 90 },
  mailReplyFrom: { env: 'MAIL_REPLY_FROM', parse: optional(str()) },
  /** who may send mail to an account that never chose (docs/mail.md, "Who may send"): anyone, or listed senders only */
  mailSenderPolicyDefault: { env: 'MAIL_SENDER_POLICY_DEFAULT', parse: oneOf('anyone', 'listed'), fallback: 'anyone' },
  mailReplyLimitPerHour: { env: 'MAIL_REPLY_LIMIT_PER_HOUR', parse: int(0, 10_000), fallback: 5 },
  mailFeedbackIntervalMs: { env: 'MAIL_FEEDBACK_INTERVAL_MS', parse: int(100), fallback: 5_000 },
  // the SMTP receiver (docs/mail.md): where it listens ('off': not at all), and an MX's limits
  smtpListen: { env: 'SMTP_LISTEN', parse: listenAddress(), fallback: { host: '127.0.0.1', port: 2525 } as { host: string; port: number } | 'off' },
  // the name in the greeting and in the verdicts' headers; unset: this machine's host name
  smtpHostname: { env: 'SMTP_HOSTNAME', parse: optional(str()) },
  smtpMaxConnections: { env: 'SMTP_MAX_CONNECTIONS', parse: int(1, 100_000), fallback: 200 },
  smtpMaxConnectionsPerIp: { env: 'SMTP_MAX_CONNECTIONS_PER_IP', parse: int(1, 10_000), fallback: 10 },
  // messages accepted per envelope sender (or client address for bounces) per hour; more: 450
  smtpMessagesPerSenderPerHour: { env: 'SMTP_MESSAGES_PER_SENDER_PER_HOUR', parse: int(1, 1_000_000), fallback: 300 },
  // a client silent this long is disconnected (421)
  smtpIdleTimeoutMs: { env: 'SMTP_IDLE_TIMEOUT_MS', parse: int(100), fallback: 60_000 },
  // messages being committed at once; past it DATA gets 451 and the sender retries
  smtpMaxPendingMessages: { env: 'SMTP_MAX_PENDING_MESSAGES', parse: int(1, 10_000), fallback: 64 },
  // DNS servers (host:port,...) for SPF, DKIM and DMARC look-ups; unset: the system's resolver
  dnsServers: { env: 'DNS_SERVERS', parse: optional(hostPorts()) },
  // webhooks (docs/webhooks.md)
  webhookAllowPrivate: { env: 'WEBHOOK_ALLOW_PRIVATE', parse: bool(), fallback: false },
  webhookTimeoutMs: { env: 'WEBHOOK_TIMEOUT_MS', parse: int(100, 60_000), fallback: 10_000 },
  webhookConcurrency: { env: 'WEBHOOK_CONCURRENCY', parse: int(1, 1000), fallback: 32 },
  webhookBackoffMs: { env: 'WEBHOOK_BACKOFF_MS', parse: int(10), fallback: 10_000 },
  webhookBackoffMaxMs: { env: 'WEBHOOK_BACKOFF_MAX_MS', parse: int(10), fallback: 2 * 3_600_000 },
  // a delivery is retried until its event is this old
  webhookRetryWindowMs: { env: 'WEBHOOK_RETRY_WINDOW_MS', parse: int(1000), fallback: 3 * 86_400_000 },
  webhookDisableAfterMs: { env: 'WEBHOOK_DISABLE_AFTER_MS', parse: int(1000), fallback: 3 * 86_400_000 }, // all deliveries failing this long: disabled
  // the worker role's sweep of the outbox (events are also queued right after their commit)
  webhookDispatchIntervalMs: { env: 'WEBHOOK_DISPATCH_INTERVAL_MS', parse: int(100), fallback: 5000 },
  // a pending delivery untouched this long is queued again by the sweep (its job may be lost)
  webhookRequeueAfterMs: { env: 'WEBHOOK_REQUEUE_AFTER_MS', parse: int(100), fallback: 60_000 },
  // dashboard
  /** a signed-in person's session ends after this long without a request */
  dashboardIdleMinutes: { env: 'DASHBOARD_IDLE_MINUTES', parse: int(1, 7 * 24 * 60), fallback: 30 },
  /** free failed sign-ins per (client address, e-mail); after them each try waits 1 s, 2 s, 4 s, ... */
  dashboardSignInAttempts: { env: 'DASHBOARD_SIGNIN_ATTEMPTS', parse: int(1, 1000), fallback: 5 },
  /** failures of one e-mail (any address) or one address (any e-mail) after which the delays tighten */
  dashboardSignInCeiling: { env: 'DASHBOARD_SIGNIN_CEILING', parse: int(1, 100_000), fallback: 50 },
  /** the first wait after the free failures, doubled by each further one (at most the window) */
  dashboardSignInDelayMs: { env: 'DASHBOARD_SIGNIN_DELAY_MS', parse: int(1, 3_600_000), fallback: 1000 },
  dashboardSignInWindowMs: { env: 'DASHBOARD_SIGNIN_WINDOW_MS', parse: int(1000), fallback: 15 * 60_000 },
  /** signs the dashboard's CSRF cookie; unset: a random secret kept in DATA_DIR (set it on several API nodes) */
  dashboardSecret: { env: 'DASHBOARD_SECRET', parse: optional(str()), secret: true },
  /** encrypts TOTP keys at rest (at least 32 random characters); unset: generated into DATA_DIR, and required with DATABASE_URL once anyone uses two-step sign-in */
  secretsKey: { env: 'SECRETS_KEY', parse: optional(secretsKey), secret: true },
  // ops
  shutdownGraceMs: { env: 'SHUTDOWN_GRACE_MS', parse: int(0), fallback: 25_000 },
  /** processes without the api role serve /healthz, /readyz and /metrics on this port (unset: none) */
  opsPort: { env: 'OPS_PORT', parse: optional(int(0, 65535)) },
  /** when set, GET /metrics wants Authorization: Bearer <METRICS_TOKEN>; unset, it is open */
  metricsToken: { env: 'METRICS_TOKEN', parse: optional(str()), secret: true },
  /** V8 lets the old generation grow this much past what survived the last full GC before it collects again (0: V8's own
   * factor, 10-40 % at this heap size). Received files pass through enough short-lived objects that V8's factor ran a full
   * GC every ~60 files, each marking the whole ~50 MB heap on background threads: a third of the process's CPU at 150 files/s. */
  heapGrowingPercent: { env: 'HEAP_GROWING_PERCENT', parse: int(0, 400), fallback: 100 },
} satisfies Record<string, Setting<unknown>>;

type Schema = typeof schema;
type Value<S> = S extends { fallback: unknown; parse: Parser<infer T> } ? NonNullable<T> : S extends { parse: Parser<infer T> } ? T : never;
export type Config = { [K in keyof Schema]: Value<Schema[K]> } & { redisUrlIsDefault: boolean; links: PublicLinks };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/** Reads and checks every setting; throws one ConfigError listing every problem. `serving: false`: a tool (the admin CLI) that serves nothing. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Config> = {}, { serving = true } = {}): Config {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(schema) as [string, Setting<unknown>][]) {
    const raw = env[s.env];
    try {
      out[key] = raw === undefined || raw === '' ? s.fallback : s.parse(raw, s.env);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  Object.assign(out, overrides);
  const config = out as Config;
  config.host ||= config.tlsCert ? '0.0.0.0' : '127.0.0.1';
  if ((config.redisUrlIsDefault = !config.redisUrl)) config.redisUrl = config.redisDefaultUrl; // REDIS_URL unset
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) problems.push('TLS_CERT and TLS_KEY must be set together');
  if (config.ftpRequireTls && !config.tlsCert) problems.push('FTP_REQUIRE_TLS=true needs TLS_CERT and TLS_KEY');
  if (config.redisSentinels?.length && config.redisClusterNodes?.length) problems.push('REDIS_SENTINELS and REDIS_CLUSTER_NODES exclude each other: Redis is one or the other');
  if (serving) problems.push(...publicUrlProblems(config));
  config.links = new PublicLinks(config); // PUBLIC_URL, else the API's own loopback address
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Every setting's environment variable (config/example.env lists each one). */
export const settingEnvNames = Object.values(schema as Record<string, Setting<unknown>>).map((s) => s.env);

/** Names of the settings that hold secrets (marked `secret` above): a config problem never echoes their values. */
export const secretEnvNames = Object.values(schema as Record<string, Setting<unknown>>).filter((s) => s.secret).map((s) => s.env);
