// Who sent a message read by IMAP (the mailbox server's Authentication-Results header, believed
// only for IMAP_AUTHSERV_ID), who may send (an account's sender policy: files from others are
// held), and replies that never go to a stranger nor tell one anything. Real Dovecot, a real
// SMTP server (smtp-server) as the reply relay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

const TRUSTED = 'mx.trust.example';
let h: MailHarness;
let sink: SmtpSink;
let acct: MailAccount;
let pdf: Buffer;
let seq = 0;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startMailHarness({
    mailRole: true,
    config: {
      imapAuthservId: TRUSTED,
      smtpUrl: sink.url,
      mailReplyFrom: 'no-reply@invoices.example',
      intakeMatchWindowMs: 1500,
      intakeBackoffMs: 200,
      intakeBackoffMaxMs: 400,
    },
  });
  acct = await h.account();
  pdf = await makePdf('trust');
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

const msgId = () => `<trust-${Date.now().toString(36)}-${seq++}@supplier.example>`;
const authResults = (id: string, domain: string) =>
  `${id}; spf=pass smtp.mailfrom=bounce@${domain}; dkim=pass header.d=${domain}; dmarc=pass header.from=${domain}`;

async function recordOf(messageId: string) {
  const row = await h.moved(messageId);
  const file = (await h.db.query<{ intake_id: string }>('select intake_id from mail_message_files where message_id = $1', [row.id]))[0];
  const res = await h.request('GET', `/v2/imports/${file.intake_id}`, { key: acct.liveKey });
  expect(res.status).toBe(200);
  return { row, record: res.body };
}

describe('the sender verdict of mail read by IMAP', () => {
  it("believes the trusted server's header: the message and its file's record say the sender is authenticated", async () => {
    const id = msgId();
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'NO-SUCH-1.pdf', content: pdf }], {
        from: 'billing@supplier.example',
        messageId: id,
        headers: { 'Authentication-Results': authResults(TRUSTED, 'supplier.example') },
      }),
    );
    const { row, record } = await recordOf(id);
    expect(row.sender_verdict).toMatchObject({ source: 'imap-header', dmarc: 'pass', authenticated: true, from: 'billing@supplier.example' });
    expect(record.senderCheck).toBe(
      "Sender authenticated (From billing@supplier.example): DMARC pass, SPF pass (supplier.example), DKIM pass (supplier.example); checked by the mailbox's server",
    );
    const admin = await h.request('GET', '/admin/mail-messages?limit=250', { admin: true });
    expect(admin.body.items.find((m: any) => m.id === row.id).senderCheck).toBe(record.senderCheck);
  });

  it('ignores a header another server wrote (a stranger can write any header), and a forged From is not authenticated', async () => {
    const forgedHeader = msgId();
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'NO-SUCH-2.pdf', content: pdf }], {
        from: 'billing@supplier.example',
        messageId: forgedHeader,
        headers: { 'Authentication-Results': authResults('mx.stranger.example', 'supplier.example') },
      }),
    );
    const forgedFrom = msgId();
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'NO-SUCH-3.pdf', content: pdf }], {
        from: 'ceo@supplier.example',
        messageId: forgedFrom,
        headers: { 'Authentication-Results': authResults(TRUSTED, 'stranger.example') },
      }),
    );
    const a = await recordOf(forgedHeader);
    expect(a.row.sender_verdict).toMatchObject({ source: 'none', authenticated: false });
    expect(a.record.senderCheck).toBe('Sender not checked (From billing@supplier.example): no trusted Authentication-Results header');
    const b = await recordOf(forgedFrom);
    expect(b.row.sender_verdict).toMatchObject({ source: 'imap-header', dmarc: 'pass', authenticated: false });
    expect(b.record.senderCheck).toMatch(/^Sender not authenticated \(From ceo@supplier.example\): DMARC pass, SPF pass \(stranger.example\)/);
  });

  it('other channels carry no verdict', async () => {
    const res = await h.request('POST', '/v2/imports', { key: acct.liveKey, body: { filename: 'NO-SUCH-4.pdf', content: pdf.toString('base64') } });
    expect(res.status).toBe(202);
    expect(res.body.senderCheck).toBeNull();
  });
});

/** The message's reply row, once decided (no longer pending or sending) unless `pending` is fine. */
async function replyOf(messageId: string, settled = true) {
  let row: any;
  await until(
    async () => {
      row = (await h.db.query(`select r.* from mail_replies r join mail_messages m on m.id = r.message_id where m.header_message_id = $1`, [messageId]))[0];
      return Boolean(row) && (!settled || !['pending', 'sending'].includes(row.state));
    },
    45_000,
    `the reply to ${messageId}`,
  );
  return row;
}
const mail = (from: string, filename: string, id: string, authResultsFor?: string) =>
  invoiceMail(acct.live, [{ filename, content: pdf }], {
    from,
    messageId: id,
    ...(authResultsFor ? { headers: { 'Authentication-Results': authResults(TRUSTED, authResultsFor) } } : {}),
  });

describe('who may send, and who gets a reply', () => {
  let listedAcct: MailAccount;
  beforeAll(async () => {
    listedAcct = await h.account();
    const put = await h.request('PUT', '/v2/account/senders', {
      key: listedAcct.liveKey,
      body: { Policy: 'listed', Senders: ['@supplier.example', 'Billing@Partner.example'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ resource: 'senders', policy: 'listed', senders: ['@supplier.example', 'billing@partner.example'] });
  });
  const to = (a: MailAccount, from: string, filename: string, id: string, authFor?: string) => ({ ...mail(from, filename, id, authFor), to: a.live });

  it('GET/PUT /v2/account/senders: per mode, the default for an account that never chose, and a clear 400', async () => {
    expect((await h.request('GET', '/v2/account/senders', { key: listedAcct.liveKey })).body).toMatchObject({ policy: 'listed' });
    expect((await h.request('GET', '/v2/account/senders', { key: listedAcct.testKey })).body).toEqual({ resource: 'senders', policy: 'anyone', senders: [] });
    const bad = await h.request('PUT', '/v2/account/senders', { key: listedAcct.testKey, body: { policy: 'listed', senders: ['supplier.example'] } });
    expect(bad).toMatchObject({
      status: 400,
      body: { status: 400, field: 'senders', detail: expect.stringMatching(/"supplier.example" is neither an address/) },
    });
    expect((await h.request('PUT', '/v2/account/senders', { key: listedAcct.testKey, body: { policy: 'some', senders: [] } })).status).toBe(400);
  });

  it('strangers get nothing: a forged From, an untrusted header, an unlisted sender, a listed one without alignment, a bounce; a listed authenticated sender gets its reply with the facts', async () => {
    const forged = msgId();
    await h.dovecot.append(to(acct, 'ceo@supplier.example', 'NO-SUCH-10.pdf', forged));
    const untrusted = msgId();
    await h.dovecot.append({
      ...to(acct, 'untrusted@supplier.example', 'NO-SUCH-11.pdf', untrusted),
      headers: { 'Authentication-Results': authResults('mx.stranger.example', 'supplier.example') },
    });
    const unlisted = msgId();
    await h.dovecot.append(to(listedAcct, 'billing@stranger.example', 'NO-SUCH-12.pdf', unlisted, 'stranger.example'));
    const unaligned = msgId();
    await h.dovecot.append(to(listedAcct, 'ar@supplier.example', 'NO-SUCH-13.pdf', unaligned, 'relay.example'));
    const bounce = msgId();
    await h.dovecot.append({
      ...to(acct, 'MAILER-DAEMON@supplier.example', 'NO-SUCH-14.pdf', bounce, 'supplier.example'),
      headers: { 'Auto-Submitted': 'auto-replied', 'Authentication-Results': authResults(TRUSTED, 'supplier.example') },
    });
    const unlistedAuthed = msgId();
    await h.dovecot.append(to(acct, 'anna@supplier.example', 'NO-SUCH-15.pdf', unlistedAuthed, 'supplier.example'));
    const listed = msgId();
    await h.dovecot.append(to(listedAcct, 'anna@supplier.example', 'NO-SUCH-16.pdf', listed, 'supplier.example'));

    // a listed, authenticated sender: the reply says which number exists (none), with its advice
    expect(await replyOf(listed)).toMatchObject({ state: 'sent', recipient: 'anna@supplier.example', facts: true });
    await until(() => sink.to('anna@supplier.example').length === 2, 30_000, 'both replies to anna');
    const texts = sink.to('anna@supplier.example').map((m) => m.parsed.text ?? '');
    const withFacts = texts.find((t) => t.includes('NO-SUCH-16.pdf'))!;
    expect(withFacts).toContain('NO-SUCH-16.pdf: No invoice with id or number NO-SUCH-16');
    expect(withFacts).toContain('Name each PDF after its invoice number');
    // authenticated but not listed (an account open to anyone): a reply without invoice facts
    const noFacts = texts.find((t) => t.includes('NO-SUCH-15.pdf'))!;
    expect(noFacts).toContain('NO-SUCH-15.pdf: It could not be matched to an invoice');
    expect(noFacts).not.toContain('No invoice with id or number');

    for (const id of [forged, untrusted, unaligned])
      expect(await replyOf(id, false), id).toMatchObject({ state: 'suppressed', reason: expect.stringMatching(/not authenticated/) });
    expect(await replyOf(bounce, false)).toMatchObject({ state: 'suppressed', reason: 'Auto-Submitted: auto-replied' });
    // the unlisted sender's file is held (not final): no reply is even due
    expect(await replyOf(unlisted, false)).toMatchObject({ state: 'pending' });
    for (const stranger of [
      'ceo@supplier.example',
      'untrusted@supplier.example',
      'billing@stranger.example',
      'ar@supplier.example',
      'mailer-daemon@supplier.example',
    ])
      expect(sink.to(stranger), stranger).toEqual([]);

    const held = (await recordOf2(listedAcct, unlisted)).record;
    expect(held).toMatchObject({
      status: 'held',
      reasonCode: 'held_sender_not_listed',
      reason: expect.stringMatching(/^billing@stranger.example is not on the list of senders/),
    });
    const notAligned = (await recordOf2(listedAcct, unaligned)).record;
    expect(notAligned).toMatchObject({ status: 'held', reasonCode: 'held_sender_not_authenticated' });
    // anyone may still send to the account that did not choose: the forged From's file went to matching
    expect((await recordOf(forged)).record.status).not.toBe('held');
  });

  it('held -> released with its sender added -> attached, and the next mail is not held; held -> discarded', async () => {
    const inv = await h.invoice(listedAcct.liveKey);
    const first = msgId();
    await h.dovecot.append(to(listedAcct, 'ap@newpartner.example', `${inv.invoiceNumber}.pdf`, first, 'newpartner.example'));
    const { record } = await recordOf2(listedAcct, first);
    expect(record.status).toBe('held');
    const wrong = await h.request('POST', `/v2/imports/${record.id}/release`, { key: listedAcct.testKey, body: {} });
    expect(wrong.status).toBe(404); // another mode's key never sees it
    const released = await h.request('POST', `/v2/imports/${record.id}/release`, { key: listedAcct.liveKey, body: { AddSender: true } });
    expect(released).toMatchObject({ status: 200, body: { status: 'received' } });
    await until(
      async () => (await h.request('GET', `/v2/imports/${record.id}`, { key: listedAcct.liveKey })).body.status === 'attached',
      30_000,
      'the released file to be attached',
    );
    expect((await h.request('GET', '/v2/account/senders', { key: listedAcct.liveKey })).body.senders).toContain('ap@newpartner.example');
    const again = await h.request('POST', `/v2/imports/${record.id}/release`, { key: listedAcct.liveKey });
    expect(again, JSON.stringify(again.body)).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/only a held file can be released/) } });

    const next = msgId();
    await h.dovecot.append(to(listedAcct, 'ap@newpartner.example', 'NO-SUCH-20.pdf', next, 'newpartner.example'));
    expect((await recordOf2(listedAcct, next)).record.status).not.toBe('held');

    const other = msgId();
    await h.dovecot.append(to(listedAcct, 'spam@stranger.example', 'x.pdf', other));
    const spam = (await recordOf2(listedAcct, other)).record;
    expect(spam.status).toBe('held');
    expect((await h.request('DELETE', `/v2/imports/${spam.id}`, { key: listedAcct.liveKey })).status).toBe(204);
    expect((await h.request('GET', `/v2/imports/${spam.id}`, { key: listedAcct.liveKey })).status).toBe(410);
    expect((await h.request('GET', '/v2/imports?status=held', { key: listedAcct.liveKey })).body.imports.map((i: any) => i.id)).not.toContain(spam.id);
  });
});

async function recordOf2(a: MailAccount, messageId: string) {
  const row = await h.moved(messageId);
  const file = (await h.db.query<{ intake_id: string }>('select intake_id from mail_message_files where message_id = $1', [row.id]))[0];
  const res = await h.request('GET', `/v2/imports/${file.intake_id}`, { key: a.liveKey });
  return { row, record: res.body };
}
