// The `mail` role: the poller of the import mailbox and, with SMTP_URL, the replies to senders.
// Runs only when IMAP_URL is set, and says so either way.
import type { Container } from './container.ts';
import type { Config } from '../config/config.ts';
import { mailRuleProblems } from '../config/config-rules.ts';
import type { IntakeReceiver } from '../intake/intake-port.ts';
import { openMailboxSession } from '../channels/mail/imap-mailbox.ts';
import { describeImapUrl, parseImapUrl } from '../channels/mail/imap-url.ts';
import {
  GOOGLE_TOKEN_URL,
  isAuthenticationFailure,
  MICROSOFT_IMAP_SCOPE,
  microsoftTokenUrl,
  OAuthTokenSource,
  pemText,
  type ImapOAuthSettings,
} from '../channels/mail/imap-oauth.ts';
import type { MailFeedback, ReplySender } from '../channels/mail/mail-feedback.ts';
import { buildMailFeedback, type RecordReader } from './mail-feedback-part.ts';
import { MailIntake } from '../channels/mail/mail-intake.ts';
import { MailMetrics } from '../channels/mail/mail-metrics.ts';
import { MailPoller } from '../channels/mail/mail-poller.ts';
import { addressesIn } from '../channels/mail/recipient-routing.ts';
import { smtpReplySender } from '../channels/mail/smtp-sender.ts';

export interface MailRole {
  poller: MailPoller;
  intake: MailIntake;
  feedback?: MailFeedback;
  stop(): Promise<void>;
}

export interface MailRoleDeps {
  /** where files go (the intake pipeline) */
  receiver: IntakeReceiver;
  /** reads import records (their final status decides the replies) */
  records: RecordReader;
  /** a reply transport other than SMTP_URL (tests) */
  sender?: ReplySender;
  /** settings other than the container's (a second poller in tests, benchmarks) */
  config?: Config;
}

/** Checks the mail settings that depend on each other (config-rules.ts) and that the OAuth certificate can be read; throws with every problem. */
export function checkMailConfig(config: Config): void {
  if (!config.imapUrl) return;
  const problems = mailRuleProblems(config);
  imapOAuthSettings(config, problems);
  if (problems.length) throw new Error(`Invalid mail configuration:\n  - ${problems.join('\n  - ')}`);
}

/**
 * IMAP_AUTH=xoauth2 (or oauthbearer): where and how to get tokens. A refresh token means that
 * flow (Gmail; default endpoint Google's); otherwise client credentials (Microsoft 365: the
 * tenant gives the endpoint, the scope defaults to Exchange Online's). The rules between these
 * settings are config-rules.ts's; a certificate that cannot be read is added to `problems`.
 */
function imapOAuthSettings(config: Config, problems: string[] = []): ImapOAuthSettings | undefined {
  if (config.imapAuth === 'password') return undefined;
  const { imapOauthClientId: clientId, imapOauthRefreshToken: refreshToken, imapOauthClientCert: cert, imapOauthClientKey: key } = config;
  const tokenUrl =
    config.imapOauthTokenUrl ?? (config.imapOauthTenant ? microsoftTokenUrl(config.imapOauthTenant) : refreshToken ? GOOGLE_TOKEN_URL : undefined);
  let clientCertificate: ImapOAuthSettings['clientCertificate'];
  try {
    if (cert && key) clientCertificate = { cert: pemText(cert), key: pemText(key) };
  } catch (e) {
    problems.push(`IMAP_OAUTH_CLIENT_CERT or IMAP_OAUTH_CLIENT_KEY cannot be read: ${(e as Error).message}`);
  }
  if (!clientId || !tokenUrl) return undefined;
  const scope = config.imapOauthScope ?? (refreshToken ? undefined : MICROSOFT_IMAP_SCOPE);
  return { tokenUrl, clientId, clientSecret: config.imapOauthClientSecret, clientCertificate, refreshToken, scope };
}

export function startMailRole(c: Container, deps: MailRoleDeps): MailRole | undefined {
  const config = deps.config ?? c.config;
  const log = c.log.child({ role: 'mail' });
  if (!config.imapUrl) {
    log.info('mail role is off: IMAP_URL is not set');
    return undefined;
  }
  checkMailConfig(config);
  const imap = parseImapUrl(config.imapUrl);
  const replyFrom = config.mailReplyFrom ?? config.importAddress;
  const sender = deps.sender ?? (config.smtpUrl ? smtpReplySender(config.smtpUrl) : undefined);
  const metrics = new MailMetrics(c.metrics.registry);
  const intake = new MailIntake(
    { db: c.db, repos: c.mailRepos, intake: deps.receiver, findByImportAddress: (a) => c.accounts.findByImportAddress(a), log },
    {
      onAutomatic: (category) => metrics.automaticMessage(category),
      mailbox: imap.mailbox,
      leaseMs: config.mailClaimLeaseMs,
      replies: Boolean(sender),
      ownAddresses: [...addressesIn(replyFrom), config.importAddress],
      authservId: config.imapAuthservId,
      senderPolicy: (scope) => c.senderPolicies.get(scope),
    },
  );
  const oauth = imapOAuthSettings(config);
  const tokens = oauth && new OAuthTokenSource(oauth, log);
  const openWith = async () =>
    openMailboxSession(imap, {
      ensure: [config.mailProcessedMailbox, config.mailFailedMailbox, config.mailAutomaticMailbox],
      idleDelayMs: config.mailIdleDelayMs,
      commandTimeoutMs: config.mailCommandTimeoutMs,
      log,
      accessToken: tokens && (await tokens.accessToken()),
    });
  const open = async () => {
    try {
      return await openWith();
    } catch (err) {
      if (!tokens || !isAuthenticationFailure(err)) throw err;
      // the server refused a token we thought valid (revoked, lifetime cut short): a new one, once
      log.warn('IMAP refused the OAuth access token: fetching a new one');
      tokens.invalidate();
      return openWith();
    }
  };
  const poller = new MailPoller(
    open,
    intake,
    {
      processedMailbox: config.mailProcessedMailbox,
      failedMailbox: config.mailFailedMailbox,
      automaticMailbox: config.mailAutomaticMailbox,
      pollIntervalMs: config.mailPollIntervalMs,
      watchdogIntervalMs: config.mailWatchdogIntervalMs,
      watchdogTimeoutMs: config.mailWatchdogTimeoutMs,
      reconnectMinMs: config.mailReconnectMinMs,
      reconnectMaxMs: config.mailReconnectMaxMs,
      maxMessageBytes: config.mailMaxMessageBytes,
      maxArchiveBytes: config.zipMaxTotalBytes,
      batchSize: config.mailBatchSize,
      concurrency: config.mailConcurrency,
      recheckMs: config.mailClaimLeaseMs,
    },
    log,
  );
  const feedback = sender ? buildMailFeedback(c, config, deps.records, sender, metrics, log) : undefined;
  poller.start();
  feedback?.start();
  log.info(
    { imap: describeImapUrl(imap), auth: config.imapAuth, replies: Boolean(sender), processed: config.mailProcessedMailbox, failed: config.mailFailedMailbox },
    'mail role polling the import mailbox',
  );
  return {
    poller,
    intake,
    feedback,
    async stop() {
      await poller.stop();
      await feedback?.stop();
    },
  };
}
