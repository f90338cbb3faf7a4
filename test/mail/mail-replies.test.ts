// Replies to senders (SMTP_URL) once the intake outcome of their files is final: only for files
// that could not be matched or checked, never to auto-submitted mail, and at most
// MAIL_REPLY_LIMIT_PER_HOUR per sender. A real SMTP receiver (smtp-server) gets them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { authenticated, invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';
import type Mail from 'nodemailer/lib/mailer';

/** Every sender here is authenticated by the mailbox's server (a reply goes to no one else). */
const append = (m: Mail.Options, box?: string) => h.dovecot.append(authenticated(m), box);
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
      smtpUrl: sink.url,
      mailReplyFrom: 'Invoice intake <no-reply@invoices.example>',
      mailReplyLimitPerHour: 2,
      // unmatched files give up quickly here
      intakeMatchWindowMs: 1500,
      intakeBackoffMs: 200,
      intakeBackoffMaxMs: 400,
    },
  });
  acct = await h.account();
  // its senders are listed: replies may say which invoice numbers exist
  await h.request('PUT', '/v2/account/senders', { key: acct.liveKey, body: { policy: 'anyone', senders: ['@supplier.example'] } });
  pdf = await makePdf('reply');
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

const sender = (tag: string) => `${tag}-${Date.now().toString(36)}-${seq++}@supplier.example`;
const msgId = () => `<reply-${Date.now().toString(36)}-${seq++}@supplier.example>`;

/** The message's reply row once it is decided (no longer pending or sending). */
async function decidedReply(messageId: string, ms = 45_000) {
  let row: any;
  await until(
    async () => {
      row = (
        await h.db.query(
          `select r.* from mail_replies r join mail_messages m on m.id = r.message_id where m.header_message_id = $1 and r.state not in ('pending', 'sending')`,
          [messageId],
        )
      )[0];
      return Boolean(row);
    },
    ms,
    `the reply to ${messageId} to be decided`,
  );
  return row;
}

describe('replies', () => {
  it('answers a file that matched no invoice, in the thread, marked auto-replied, with the reason', async () => {
    const from = sender('unmatched');
    const id = msgId();
    await append(invoiceMail(acct.live, [{ filename: 'NO-SUCH-INVOICE-1.pdf', content: pdf }], { from, messageId: id, subject: 'Invoice 1' }));
    expect(await decidedReply(id)).toMatchObject({ state: 'sent', recipient: from });
    await until(() => sink.to(from).length === 1, 30_000, 'the reply at the SMTP server');
    const reply = sink.to(from)[0].parsed;
    expect(reply.subject).toBe('Re: Invoice 1');
    expect(reply.inReplyTo).toBe(id);
    expect(reply.headers.get('auto-submitted')).toBe('auto-replied');
    expect(reply.from?.value[0].address).toBe('no-reply@invoices.example');
    expect(reply.text).toContain('NO-SUCH-INVOICE-1.pdf: No invoice with id or number NO-SUCH-INVOICE-1');
  });

  it('answers a file that failed the PDF check', async () => {
    const from = sender('corrupt');
    const id = msgId();
    await append(
      invoiceMail(acct.live, [{ filename: 'broken.pdf', content: Buffer.from('%PDF-1.4\nthis is not really a PDF at all\n') }], { from, messageId: id }),
    );
    expect(await decidedReply(id)).toMatchObject({ state: 'sent' });
    await until(() => sink.to(from).length === 1, 30_000, 'the reply');
    expect(sink.to(from)[0].parsed.text).toMatch(/broken\.pdf: .*PDF/);
  });

  it('answers a message without PDF', async () => {
    const from = sender('nopdf');
    const id = msgId();
    await append({ from, to: acct.live, subject: 'See attached', messageId: id, text: 'forgot the attachment' });
    expect(await decidedReply(id)).toMatchObject({ state: 'sent' });
    await until(() => sink.to(from).length === 1, 30_000, 'the reply');
    expect(sink.to(from)[0].parsed.text).toContain('No PDF attached');
  });

  it('does not answer when every file was attached, and lists only the failed files otherwise', async () => {
    const inv = await h.invoice(acct.liveKey);
    const okFrom = sender('fine');
    const okId = msgId();
    await append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: pdf }], { from: okFrom, messageId: okId }));
    expect(await decidedReply(okId)).toMatchObject({ state: 'not_needed' });

    const inv2 = await h.invoice(acct.liveKey);
    const mixedFrom = sender('mixed');
    const mixedId = msgId();
    await append(
      invoiceMail(
        acct.live,
        [
          { filename: `${inv2.invoiceNumber}.pdf`, content: pdf },
          { filename: 'UNKNOWN-77.pdf', content: pdf },
        ],
        { from: mixedFrom, messageId: mixedId },
      ),
    );
    expect(await decidedReply(mixedId)).toMatchObject({ state: 'sent' });
    await until(() => sink.to(mixedFrom).length === 1, 30_000, 'the reply');
    const text = sink.to(mixedFrom)[0].parsed.text!;
    expect(text).toContain('UNKNOWN-77.pdf');
    expect(text).not.toContain(inv2.invoiceNumber);
    expect(sink.to(okFrom)).toHaveLength(0);
  });

  it('answers Reply-To rather than From', async () => {
    const from = sender('from');
    const replyTo = sender('replyto');
    const id = msgId();
    await append(invoiceMail(acct.live, [{ filename: 'NOPE-RT.pdf', content: pdf }], { from, replyTo, messageId: id }));
    expect(await decidedReply(id)).toMatchObject({ state: 'sent', recipient: replyTo });
    await until(() => sink.to(replyTo).length === 1, 30_000, 'the reply');
    expect(sink.to(from)).toHaveLength(0);
  });
});

describe('never to auto-submitted mail', () => {
  it.each([
    ['Auto-Submitted: auto-generated', { headers: { 'Auto-Submitted': 'auto-generated' } }, /Auto-Submitted/],
    ['Auto-Submitted: auto-replied', { headers: { 'Auto-Submitted': 'auto-replied' } }, /Auto-Submitted/],
    ['X-Auto-Response-Suppress: All', { headers: { 'X-Auto-Response-Suppress': 'All' } }, /X-Auto-Response-Suppress/],
    ['an empty Return-Path (a bounce)', { headers: { 'Return-Path': '<>' } }, /bounce/],
    ['MAILER-DAEMON', { from: 'MAILER-DAEMON@mx.supplier.example' }, /mail system/],
    ['list mail (List-Id)', { headers: { 'List-Id': 'Invoices <invoices.lists.supplier.example>' } }, /list mail/],
    ['Precedence: bulk', { headers: { Precedence: 'bulk' } }, /Precedence/],
  ])('%s', async (_name, extra, reason) => {
    const from = (extra as { from?: string }).from ?? sender('auto');
    const id = msgId();
    const filename = `NOPE-AUTO-${seq}.pdf`;
    await append(invoiceMail(acct.live, [{ filename, content: pdf }], { from, messageId: id, ...(extra as object) }));
    const row = await decidedReply(id);
    expect(row.state).toBe('suppressed');
    expect(row.reason).toMatch(reason);
    // its file fails like any other, and an ordinary message sent after it is answered: the
    // feedback loop has run past this one and sent nothing for it
    const record = (await h.records(acct.liveScope)).find((r) => r.filename === filename);
    expect(record).toBeDefined();
    const control = sender('control');
    const controlId = msgId();
    await append(invoiceMail(acct.live, [{ filename: 'NOPE-CONTROL.pdf', content: pdf }], { from: control, messageId: controlId }));
    await until(() => sink.to(control).length === 1, 45_000, 'the control reply');
    expect((await h.svc.container.intake.get(acct.liveScope, record!.id)).status).toBe('failed');
    expect(sink.to(from)).toHaveLength(0);
  });
});

describe('reply limit', () => {
  it('sends at most MAIL_REPLY_LIMIT_PER_HOUR replies to one sender', async () => {
    const from = sender('flood');
    const ids = [msgId(), msgId(), msgId(), msgId()];
    for (const [i, id] of ids.entries()) {
      await append(invoiceMail(acct.live, [{ filename: `FLOOD-${i}.pdf`, content: pdf }], { from: from.toUpperCase(), messageId: id }));
    }
    const rows = await Promise.all(ids.map((id) => decidedReply(id)));
    expect(rows.filter((r) => r.state === 'sent')).toHaveLength(2);
    const limited = rows.filter((r) => r.state === 'suppressed');
    expect(limited).toHaveLength(2);
    for (const r of limited) expect(r.reason).toMatch(/reply limit of 2 per hour/);
    // said once in the log and counted for the operator, however many replies it suppressed
    const said = h.logs.filter((l) => l.includes('mail reply limit reached for a sender') && l.includes(from));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0])).toMatchObject({ level: 40, recipient: from, limitPerHour: 2 });
    const metrics = String((await h.request('GET', '/metrics')).body);
    expect(metrics).toMatch(/^mail_reply_limit_reached_total 1$/m);
    expect(metrics).toMatch(/^mail_replies_suppressed_total 2$/m);
    // the suppressed problems stay visible in the account's list
    const imports = await h.request('GET', '/v2/imports?limit=250', { key: acct.liveKey });
    const flood = imports.body.imports.filter((r: any) => /^FLOOD-\d\.pdf$/.test(r.filename));
    expect(flood.map((r: any) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    await until(() => sink.to(from).length === 2, 30_000, 'two replies');
    // a message sent after the flood is answered: the feedback loop has run past the flood, and
    // still sent it two replies only
    const control = sender('control');
    await append(invoiceMail(acct.live, [{ filename: 'FLOOD-CONTROL.pdf', content: pdf }], { from: control, messageId: msgId() }));
    await until(() => sink.to(control).length === 1, 45_000, 'the control reply');
    expect(sink.to(from)).toHaveLength(2);
  });
});
