// The e-mail channel under test: a throwaway Dovecot, the real service (API + intake workers) on a
// fresh PostgreSQL database and a private Redis prefix, and mail pollers started on demand
// (several at once, through a proxy, with their own settings).
import type Mail from 'nodemailer/lib/mailer';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { startMailRole, type MailRole } from '../../src/app/mail-role.ts';
import type { ReplySender } from '../../src/channels/mail/mail-feedback.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import type { Scope } from '../../src/domain/scope.ts';
import type { IntakeReceiver } from '../../src/intake/intake-port.ts';
import type { ImportRecord } from '../../src/domain/intake.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { startDovecot, type Dovecot, type DovecotOptions } from '../../testkit/dovecot.ts';
import { httpClient, type HttpReply } from '../../testkit/http-client.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { until } from '../../testkit/wait.ts';
import { testConfig } from '../helpers/test-app.ts';
import { dropQueueKeys } from '../intake/intake-harness.ts';

export interface MailAccount {
  id: string;
  liveKey: string;
  testKey: string;
  /** the personal import addresses */
  live: string;
  test: string;
  liveScope: Scope;
  testScope: Scope;
}

export interface MailHarness {
  dovecot: Dovecot;
  svc: RunningService;
  config: Config;
  db: Database;
  /** the test database's URL (for poller processes of their own) */
  dbUrl: string;
  /** log lines written by the service (JSON) */
  logs: string[];
  /** the service over real HTTP (testkit/http-client.ts); `admin` sends the admin token */
  request(method: string, url: string, opts?: { key?: string; body?: unknown; admin?: boolean }): Promise<HttpReply>;
  account(): Promise<MailAccount>;
  invoice(key: string, invoiceNumber?: string): Promise<{ id: string; invoiceNumber: string }>;
  /** a poller over the harness's Dovecot (or `imapUrl`), with the harness's settings plus `overrides` */
  startPoller(overrides?: Partial<Config>, deps?: { receiver?: IntakeReceiver; sender?: ReplySender }): MailRole;
  /** The URL of `box` on the harness's Dovecot reached through a proxy in front of it on `port` (test/helpers/tcp-proxy.ts). */
  urlVia(port: number, box: string): string;
  records(scope: Scope): Promise<ImportRecord[]>;
  /** Waits until the message with this Message-ID was moved, and returns its claim row. */
  moved(messageId: string, ms?: number): Promise<any>;
  /** The message's claim row and intake records, once every record is final. */
  settledRecords(messageId: string, ms?: number): Promise<{ row: any; records: ImportRecord[] }>;
  close(): Promise<void>;
}

/** Settings for fast tests: IDLE drives the drains, the poll is only a slow safety net. */
export const MAIL_TEST_SETTINGS: Partial<Config> = {
  mailIdleDelayMs: 50,
  mailPollIntervalMs: 60_000,
  mailWatchdogIntervalMs: 30_000,
  mailWatchdogTimeoutMs: 5_000,
  mailCommandTimeoutMs: 20_000,
  mailReconnectMinMs: 50,
  mailReconnectMaxMs: 1_000,
  mailClaimLeaseMs: 3_000,
  mailFeedbackIntervalMs: 200,
  imapAuthservId: 'mx.test.example',
};

export async function startMailHarness(
  opts: {
    dovecot?: DovecotOptions;
    /** the mailbox the poller reads (IMAP_URL path) */
    mailbox?: string;
    config?: Partial<Config>;
    /** run the mail role inside startService (IMAP_URL set), as `npm start` does */
    mailRole?: boolean;
    /** the embedded database instead of PostgreSQL */
    pglite?: boolean;
  } = {},
): Promise<MailHarness> {
  const dovecot = await startDovecot(opts.dovecot);
  const mailbox = opts.mailbox ?? 'INBOX';
  const base = testConfig({ roles: ['api', 'worker'], ...MAIL_TEST_SETTINGS, ...opts.config });
  const config: Config = opts.mailRole ? { ...base, roles: ['api', 'worker', 'mail'], imapUrl: dovecot.url(mailbox) } : base;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const pg = opts.pglite ? { url: '', drop: async () => {} } : await createPgDatabase();
  const db = opts.pglite ? await openPglite(undefined) : openPostgres(pg.url, 10);
  const svc = await startService(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'info', sink), { db });
  const pollers: MailRole[] = [];
  let seq = 0;

  const api = httpClient(svc.apiUrl!);
  const request: MailHarness['request'] = (method, url, o = {}) => api(method, url, { key: o.admin ? config.adminToken : o.key, body: o.body });

  const h: MailHarness = {
    dovecot,
    svc,
    config,
    db,
    dbUrl: pg.url,
    logs,
    request,
    async account() {
      // the admin API, as operators create accounts: it shows the personal import addresses
      const res = await request('POST', '/admin/accounts', { body: { name: `mail-${randomToken(6)}` }, admin: true });
      if (res.status !== 201) throw new Error(`account: ${res.status} ${JSON.stringify(res.body)}`);
      const a = res.body;
      return {
        id: a.id,
        liveKey: a.liveKey,
        testKey: a.testKey,
        live: a.importAddresses.live,
        test: a.importAddresses.test,
        liveScope: { accountId: a.id, mode: 'live' },
        testScope: { accountId: a.id, mode: 'test' },
      };
    },
    async invoice(key, invoiceNumber = `F-${Date.now().toString(36)}-${seq++}`) {
      const customer = await request('POST', '/v2/customers', { key, body: { customerCode: `C-${Date.now().toString(36)}-${seq++}`, name: 'Mail BV' } });
      if (customer.status !== 201) throw new Error(`customer: ${customer.status} ${JSON.stringify(customer.body)}`);
      const res = await request('POST', '/v2/invoices', {
        key,
        body: { customer: customer.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
      });
      if (res.status !== 201) throw new Error(`invoice: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    startPoller(overrides = {}, deps = {}) {
      const role = startMailRole(svc.container, {
        receiver: deps.receiver ?? svc.container.intake,
        records: svc.container.intake,
        sender: deps.sender,
        config: { ...config, imapUrl: dovecot.url(mailbox), ...overrides },
      });
      if (!role) throw new Error('mail role did not start');
      pollers.push(role);
      return role;
    },
    urlVia: (port, box) => dovecot.url(box).replace(`:${dovecot.port}/`, `:${port}/`),
    records: (scope) => svc.container.intake.recent(scope, 1000),
    async moved(messageId, ms = 45_000) {
      let row: any;
      await until(
        async () => {
          row = (await db.query(`select * from mail_messages where header_message_id = $1 and state = 'moved'`, [messageId]))[0];
          return Boolean(row);
        },
        ms,
        `message ${messageId} to be moved`,
      );
      return row;
    },
    async settledRecords(messageId, ms = 45_000) {
      const row = await h.moved(messageId, ms);
      const files = await db.query<{ intake_id: string }>('select intake_id from mail_message_files where message_id = $1', [row.id]);
      const scope = { accountId: row.account_id, mode: row.mode };
      let records: ImportRecord[] = [];
      await until(
        async () => {
          records = await Promise.all(files.map((f) => svc.container.intake.get(scope, f.intake_id)));
          return records.every((r) => r.status === 'attached' || r.status === 'failed');
        },
        ms,
        `records of ${messageId} to settle`,
      );
      return { row, records };
    },
    async close() {
      for (const p of pollers) await p.stop().catch(() => {});
      await svc.stop();
      await dropQueueKeys(config);
      await db.close();
      await pg.drop();
      await dovecot.stop();
    },
  };
  return h;
}

export { until };

/** Processed and Failed mailboxes of `box`'s own, so that the tests of a file, which share one Dovecot, do not count each other's moved mail. */
export const boxes = (box: string) => ({ mailProcessedMailbox: `${box}Done`, mailFailedMailbox: `${box}Failed` });

const b64 = (b: Buffer) => b.toString('base64').replace(/(.{76})/g, '$1\r\n');

/**
 * An attachment with hand-written MIME headers (MailComposer's `raw` node), for header encodings
 * the test must control exactly.
 */
export const rawPart = (partHeaders: string, pdf: Buffer) => ({ raw: `${partHeaders}\r\nContent-Transfer-Encoding: base64\r\n\r\n${b64(pdf)}\r\n` });

/**
 * The message as the mailbox's server delivers it after checking its sender: an
 * Authentication-Results header of the authserv-id the harness trusts (MAIL_TEST_SETTINGS), with
 * DMARC, SPF and DKIM passing for its From's domain. Without it a sender is not authenticated.
 */
export function authenticated(m: Mail.Options): Mail.Options {
  const from = String(typeof m.from === 'object' && m.from && 'address' in m.from ? m.from.address : (m.from ?? 'accounts@supplier.example'));
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1]?.toLowerCase() ?? 'supplier.example';
  const header = `${MAIL_TEST_SETTINGS.imapAuthservId}; spf=pass smtp.mailfrom=bounce@${domain}; dkim=pass header.d=${domain}; dmarc=pass header.from=${domain}`;
  return { ...m, headers: { 'Authentication-Results': header, ...(m.headers as Record<string, string> | undefined) } };
}

/** A message with PDFs attached, as a mail client would send it. */
export function invoiceMail(to: string, attachments: Mail.Attachment[], extra: Mail.Options = {}): Mail.Options {
  return { from: 'Accounts <accounts@supplier.example>', to, subject: 'Invoice', text: 'Please find the invoice attached.', attachments, ...extra };
}
