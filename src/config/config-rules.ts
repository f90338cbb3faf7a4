// The rules between settings, checked once every setting is readable on its own (config.ts).
// Each problem names the variables involved.
import type { Config } from './config.ts';

export function configRuleProblems(config: Config): string[] {
  const problems: string[] = [];
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) problems.push('TLS_CERT and TLS_KEY must be set together');
  if (config.ftpRequireTls && !config.tlsCert) problems.push('FTP_REQUIRE_TLS=true needs TLS_CERT and TLS_KEY');
  if (config.redisSentinels?.length && config.redisClusterNodes?.length)
    problems.push('REDIS_SENTINELS and REDIS_CLUSTER_NODES exclude each other: Redis is one or the other');
  problems.push(...mailRuleProblems(config));
  if (config.documentStore === 'directory' && !config.documentStoreDir)
    problems.push('DOCUMENT_STORE=directory needs DOCUMENT_STORE_DIR (an existing directory; on several nodes one volume they all mount)');
  if (config.documentStore === 's3' && !config.s3Bucket) problems.push('DOCUMENT_STORE=s3 needs S3_BUCKET');
  if (config.documentStoreFallback === config.documentStore)
    problems.push('DOCUMENT_STORE_FALLBACK names DOCUMENT_STORE itself: it is the store documents move from (or leave it unset)');
  if (config.documentStoreFallback === 'directory' && !config.documentStoreDir) problems.push('DOCUMENT_STORE_FALLBACK=directory needs DOCUMENT_STORE_DIR');
  if (config.documentStoreFallback === 's3' && !config.s3Bucket) problems.push('DOCUMENT_STORE_FALLBACK=s3 needs S3_BUCKET');
  // a temporary upload waits for its rename as an unreferenced object (held-uploads.ts): the sweep must not take it first
  if (config.transferTempUploadHoldMs >= config.documentSweepGraceHours * 3_600_000)
    problems.push(
      'TRANSFER_TEMP_UPLOAD_HOLD_MS must be shorter than DOCUMENT_SWEEP_GRACE_HOURS: a temporary upload waits in the store unreferenced until its rename',
    );
  return problems;
}

/**
 * The mail role's settings that depend on each other (with IMAP_URL only). Also checked when the
 * role starts with settings of its own (app/mail-role.ts: a second poller in tests, benchmarks).
 */
export function mailRuleProblems(config: Config): string[] {
  if (!config.imapUrl) return [];
  const problems: string[] = [];
  let url: URL | undefined;
  try {
    url = new URL(config.imapUrl);
  } catch {
    return ['IMAP_URL must be a URL (imap, imaps), got an unparsable value'];
  }
  const mailbox = decodeURIComponent(url.pathname.replace(/^\/+/, '').replace(/\/+$/, '')) || 'INBOX'; // as channels/mail/imap-url.ts reads it
  for (const [name, box] of [
    ['MAIL_PROCESSED_MAILBOX', config.mailProcessedMailbox],
    ['MAIL_FAILED_MAILBOX', config.mailFailedMailbox],
    ['MAIL_AUTOMATIC_MAILBOX', config.mailAutomaticMailbox],
  ] as const) {
    if (box === mailbox) problems.push(`${name} must differ from the mailbox in IMAP_URL (${mailbox})`);
  }
  if (config.mailReconnectMinMs > config.mailReconnectMaxMs) problems.push('MAIL_RECONNECT_MIN_MS must not exceed MAIL_RECONNECT_MAX_MS');
  if (config.imapAuth === 'password') return problems;
  // IMAP_AUTH=xoauth2 (or oauthbearer): a refresh token means that flow (Gmail; Google's endpoint by
  // default), else client credentials (Microsoft 365: the tenant gives the endpoint)
  const auth = `IMAP_AUTH=${config.imapAuth}`;
  if (url.password) problems.push(`IMAP_URL must not carry a password with ${auth}: the OAuth token replaces it`);
  const { imapOauthClientId: clientId, imapOauthRefreshToken: refreshToken, imapOauthClientCert: cert, imapOauthClientKey: key } = config;
  if (!clientId) problems.push(`${auth} needs IMAP_OAUTH_CLIENT_ID`);
  if (Boolean(cert) !== Boolean(key)) problems.push('IMAP_OAUTH_CLIENT_CERT and IMAP_OAUTH_CLIENT_KEY must be set together');
  if (!refreshToken && !config.imapOauthClientSecret && !cert)
    problems.push(`${auth} needs IMAP_OAUTH_REFRESH_TOKEN, or IMAP_OAUTH_CLIENT_SECRET or IMAP_OAUTH_CLIENT_CERT (client credentials)`);
  if (!config.imapOauthTokenUrl && !config.imapOauthTenant && !refreshToken)
    problems.push(`${auth} with client credentials needs IMAP_OAUTH_TENANT (Microsoft 365) or IMAP_OAUTH_TOKEN_URL`);
  return problems;
}
