// The mail role: the import address, the mailboxes it files messages into, its pace and limits,
// and the replies to senders (SMTP_URL).
import { Type } from '../typebox.ts';
import { oneOf, setting, text, url, whole } from '../setting-types.ts';

export const mail = Type.Object(
  {
    importAddress: setting(text('e-mail address'), {
      env: 'IMPORT_ADDRESS',
      default: 'invoices@example.com',
      doc: 'The base of the personal addresses (local+token@domain).',
    }),
    smtpUrl: setting(url('smtp', 'smtps'), {
      env: 'SMTP_URL',
      secret: true,
      example: 'smtps://user:password@smtp.example.com',
      doc: 'smtp[s]://user:pass@host[:port] for replies about failed files. Unset: no replies.',
    }),
    mailReplyFrom: setting(text('e-mail address'), {
      env: 'MAIL_REPLY_FROM',
      example: 'invoices@example.com',
      doc: 'The From of replies. Unset: IMPORT_ADDRESS.',
    }),
    mailSenderPolicyDefault: setting(oneOf('anyone', 'listed'), {
      env: 'MAIL_SENDER_POLICY_DEFAULT',
      default: 'anyone',
      doc: 'Who may send mail to an account that never chose (docs/mail.md, "Who may send"): anyone, or listed (authenticated) senders only.',
    }),
    mailReplyLimitPerHour: setting(whole(0, 10_000), {
      env: 'MAIL_REPLY_LIMIT_PER_HOUR',
      default: '5',
      doc: 'Replies per sender address per sliding hour (0: none).',
    }),
    mailProcessedMailbox: setting(text('mailbox'), {
      env: 'MAIL_PROCESSED_MAILBOX',
      default: 'Processed',
      doc: 'Where handed-over mail goes (created when missing).',
    }),
    mailFailedMailbox: setting(text('mailbox'), {
      env: 'MAIL_FAILED_MAILBOX',
      default: 'Failed',
      doc: 'Where mail with nothing to take goes (created when missing).',
    }),
    mailAutomaticMailbox: setting(text('mailbox'), {
      env: 'MAIL_AUTOMATIC_MAILBOX',
      default: 'Automatic',
      doc: 'Where automatic mail without files (bounces, read receipts, out-of-office replies) goes (created when missing).',
    }),
    mailIdleDelayMs: setting(whole(10, 60_000), { env: 'MAIL_IDLE_DELAY_MS', default: '250', doc: 'Idle time before IDLE starts.' }),
    mailPollIntervalMs: setting(whole(100), { env: 'MAIL_POLL_INTERVAL_MS', default: '15000', doc: 'How often the mailbox is scanned in full.' }),
    mailWatchdogIntervalMs: setting(whole(100), { env: 'MAIL_WATCHDOG_INTERVAL_MS', default: '60000', doc: 'Quiet time before a NOOP checks the connection.' }),
    mailWatchdogTimeoutMs: setting(whole(100), { env: 'MAIL_WATCHDOG_TIMEOUT_MS', default: '15000', doc: 'Time the NOOP may take.' }),
    mailCommandTimeoutMs: setting(whole(1000), { env: 'MAIL_COMMAND_TIMEOUT_MS', default: '120000', doc: 'Time any other IMAP command may take.' }),
    mailReconnectMinMs: setting(whole(10), {
      env: 'MAIL_RECONNECT_MIN_MS',
      default: '1000',
      doc: 'The first reconnect delay, doubled up to MAIL_RECONNECT_MAX_MS.',
    }),
    mailReconnectMaxMs: setting(whole(10), { env: 'MAIL_RECONNECT_MAX_MS', default: '60000', doc: 'The longest reconnect delay.' }),
    mailMaxMessageBytes: setting(whole(1024), {
      env: 'MAIL_MAX_MESSAGE_BYTES',
      default: '26214400',
      doc: 'Larger messages: only their PDF parts are downloaded.',
    }),
    mailBatchSize: setting(whole(1, 1000), { env: 'MAIL_BATCH_SIZE', default: '50', doc: 'Messages fetched per round.' }),
    mailConcurrency: setting(whole(1, 64), { env: 'MAIL_CONCURRENCY', default: '8', doc: 'Messages handed over at once.' }),
    mailClaimLeaseMs: setting(whole(1000), { env: 'MAIL_CLAIM_LEASE_MS', default: '120000', doc: "How long a dead poller's claims block others." }),
    mailFeedbackIntervalMs: setting(whole(100), { env: 'MAIL_FEEDBACK_INTERVAL_MS', default: '5000', doc: 'How often owed replies are looked at.' }),
  },
  { title: 'Mail' },
);
