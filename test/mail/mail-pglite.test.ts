// The mail role on the embedded database (PGlite), which `npm start` uses without DATABASE_URL:
// the same claims, staging statement and reply bookkeeping as on PostgreSQL.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MessageClaimRepository } from '../../src/channels/mail/message-claim-repository.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { authenticated, invoiceMail, startMailHarness, until, type MailHarness } from './mail-harness.ts';
import type Mail from 'nodemailer/lib/mailer';

/** Every sender here is authenticated by the mailbox's server (a reply goes to no one else). */
const append = (m: Mail.Options, box?: string) => h.dovecot.append(authenticated(m), box);
let h: MailHarness;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startMailHarness({
    pglite: true,
    mailRole: true,
    config: { smtpUrl: sink.url, intakeMatchWindowMs: 1000, intakeBackoffMs: 200, intakeBackoffMaxMs: 300 },
  });
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

it('hands over, attaches, moves and replies on PGlite', async () => {
  expect(h.db.kind).toBe('pglite');
  const acct = await h.account();
  await h.request('PUT', '/v2/account/senders', { key: acct.liveKey, body: { policy: 'anyone', senders: ['@supplier.example'] } });
  const inv = await h.invoice(acct.liveKey);
  const pdf = await makePdf('pglite');
  await append(
    invoiceMail(
      acct.live,
      [
        { filename: `${inv.invoiceNumber}.pdf`, content: pdf },
        { filename: 'NOPE-PGLITE.pdf', content: pdf },
      ],
      { from: 'lite@supplier.example' },
    ),
  );
  await until(async () => (await h.dovecot.count('Processed')) === 1, 45_000, 'the message to be moved');
  let records: Awaited<ReturnType<MailHarness['records']>> = [];
  await until(
    async () => {
      records = await h.records(acct.liveScope);
      return records.length === 2 && records.every((r) => r.status === 'attached' || r.status === 'failed');
    },
    45_000,
    'both files to settle',
  );
  expect(records.find((r) => r.filename === `${inv.invoiceNumber}.pdf`)).toMatchObject({ status: 'attached', invoiceId: inv.id });
  expect(records.find((r) => r.filename === 'NOPE-PGLITE.pdf')).toMatchObject({ status: 'failed' });
  await until(() => sink.to('lite@supplier.example').length === 1, 45_000, 'the reply');
  expect(sink.to('lite@supplier.example')[0].parsed.text).toContain('NOPE-PGLITE.pdf');
  const claims = await h.db.query<{ state: string }>('select state from mail_messages');
  expect(claims).toEqual([{ state: 'moved' }]);
  // past the retention the claim goes, and its files and reply rows with it
  const claimRepository = new MessageClaimRepository();
  expect(await claimRepository.purgeMoved(h.db, 1)).toBe(0);
  expect(await claimRepository.purgeMoved(h.db, 0)).toBe(1);
  expect(await h.db.query('select 1 from mail_message_files union all select 1 from mail_replies')).toEqual([]);
}, 180_000);
