// Automatic mail (bounces, read receipts, out-of-office and other auto-replies, bulk mail) sent to
// an import address: no reply, no failed import in the account's list; set aside as `ignored`
// with a reason that names its kind, in the Automatic mailbox, counted by category in /metrics.
// An auto-generated message that carries a PDF (a billing system) is imported as any other.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness, authenticated } from './mail-harness.ts';

let h: MailHarness;
let sink: SmtpSink;
let acct: MailAccount;
let seq = 0;

const AUTOMATIC: [file: string, reason: string, category: string][] = [
  ['postfix-bounce.eml', 'automatic message: delivery status notification (bounce)', 'delivery-status'],
  ['thunderbird-read-receipt.eml', 'automatic message: read receipt', 'read-receipt'],
  ['exchange-out-of-office.eml', 'automatic message: out-of-office or other auto-reply', 'auto-reply'],
  ['vacation-autoreply.eml', 'automatic message: out-of-office or other auto-reply', 'auto-reply'],
  ['bulk-newsletter.eml', 'automatic message: bulk mail (Precedence: bulk)', 'bulk'],
];
const sent = new Map<string, string>();

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startMailHarness({ mailRole: true, config: { smtpUrl: sink.url, mailReplyFrom: 'Invoice intake <no-reply@invoices.example>' } });
  acct = await h.account();
  for (const [file] of AUTOMATIC) {
    const id = `<auto-${Date.now().toString(36)}-${seq++}@test.example>`;
    const text = readFileSync(new URL(`../fixtures/mail/automatic/${file}`, import.meta.url), 'latin1')
      .replace(/\r?\n/g, '\r\n')
      .replace(/^Message-ID: <[^>]+>/im, `Message-ID: ${id}`)
      .replace(/^Delivered-To: .*\r\n/im, '');
    sent.set(file, id);
    await h.dovecot.appendRaw(Buffer.from(`Delivered-To: ${acct.live}\r\n${text}`, 'latin1'));
  }
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

describe('automatic mail', () => {
  it.each(AUTOMATIC)('%s: ignored with its reason, no import, moved to Automatic', async (file, reason) => {
    const row = await h.moved(sent.get(file)!);
    expect(row).toMatchObject({ outcome: 'ignored', reason, account_id: acct.id });
    const files = await h.db.query('select * from mail_message_files where message_id = $1', [row.id]);
    expect(files).toEqual([]);
  });

  it("shows in the operator's view, filtered by outcome (GET /admin/mail-messages?outcome=ignored)", async () => {
    const rows = await Promise.all(AUTOMATIC.map(([file]) => h.moved(sent.get(file)!)));
    const seen: any[] = [];
    for (let from: string | null | undefined; from !== null; ) {
      const res = await h.request('GET', `/admin/mail-messages?outcome=ignored&limit=2${from ? `&from=${from}` : ''}`, { admin: true });
      expect(res.status).toBe(200);
      seen.push(...res.body.items);
      from = res.body.next;
    }
    for (const row of rows) expect(seen.find((m) => m.id === row.id)).toMatchObject({ outcome: 'ignored', reason: row.reason, account: acct.id, mode: 'live' });
    expect(seen.every((m) => m.outcome === 'ignored')).toBe(true);
    expect((await h.request('GET', '/admin/mail-messages?outcome=lost', { admin: true })).status).toBe(400);
    expect((await h.request('GET', '/admin/mail-messages', {})).status).toBe(401);
  });

  it("leaves no failed import in the account's list (the bounce's quoted PDF is not imported either)", async () => {
    for (const [file] of AUTOMATIC) await h.moved(sent.get(file)!);
    expect(await h.records(acct.liveScope)).toEqual([]);
    const res = await h.request('GET', '/v2/imports', { key: acct.liveKey });
    expect(res.status).toBe(200);
    expect(res.body.imports).toEqual([]);
    expect(await h.dovecot.count('Automatic')).toBe(AUTOMATIC.length);
    expect(await h.dovecot.count('Failed')).toBe(0);
  });

  it("sends no reply, while a person's mail without PDF from the same sender gets one", async () => {
    const from = 'ap@supplier.example';
    const id = `<human-${Date.now().toString(36)}@supplier.example>`;
    await h.dovecot.append(authenticated(invoiceMail(acct.live, [], { from, messageId: id, subject: 'Invoice without file' })));
    await until(() => sink.received.length >= 1, 30_000, 'the reply to the person');
    // every automatic message's reply is decided (suppressed), none was sent
    const states = await h.db.query<{ state: string; reason: string }>(
      `select r.state, r.reason from mail_replies r join mail_messages m on m.id = r.message_id where m.outcome = 'ignored'`,
    );
    expect(states).toHaveLength(AUTOMATIC.length);
    expect(states.every((s) => s.state === 'suppressed')).toBe(true);
    expect(sink.received.map((m) => m.envelopeTo)).toEqual([[from]]);
    expect(sink.received[0].parsed.subject).toBe('Re: Invoice without file');
  });

  it('counts them by category in /metrics and says so in the log', async () => {
    const res = await h.request('GET', '/metrics');
    const text = String(res.body);
    expect(text).toMatch(/mail_automatic_messages_total\{category="auto-reply"\} 2/);
    expect(text).toMatch(/mail_automatic_messages_total\{category="delivery-status"\} 1/);
    expect(text).toMatch(/mail_automatic_messages_total\{category="read-receipt"\} 1/);
    expect(h.logs.filter((l) => l.includes('automatic mail: not imported'))).toHaveLength(AUTOMATIC.length);
  });

  it("ignores automatic mail to no account's address (a bounce of a reply sent from the import address), but fails misrouted automatic mail with a file", async () => {
    const bounce = `<bounce-${Date.now().toString(36)}@test.example>`;
    const text = readFileSync(new URL('../fixtures/mail/automatic/exchange-out-of-office.eml', import.meta.url), 'latin1')
      .replace(/\r?\n/g, '\r\n')
      .replace(/^Message-ID: <[^>]+>/im, `Message-ID: ${bounce}`);
    await h.dovecot.appendRaw(Buffer.from(text, 'latin1'));
    expect(await h.moved(bounce)).toMatchObject({ outcome: 'ignored', account_id: null, reason: 'automatic message: out-of-office or other auto-reply' });
    const misrouted = `<misrouted-${Date.now().toString(36)}@billing.example>`;
    await h.dovecot.append(
      invoiceMail('invoices@example.com', [{ filename: 'INV-9.pdf', content: await makePdf('misrouted') }], {
        messageId: misrouted,
        headers: { 'Auto-Submitted': 'auto-generated' },
      }),
    );
    expect(await h.moved(misrouted)).toMatchObject({ outcome: 'failed', account_id: null });
  });

  it('imports the PDF of auto-generated mail from a billing system', async () => {
    const inv = await h.invoice(acct.liveKey);
    const id = `<billing-${Date.now().toString(36)}@billing.example>`;
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('billing system') }], {
        messageId: id,
        from: 'billing@billing.example',
        headers: { 'Auto-Submitted': 'auto-generated', Precedence: 'bulk' },
      }),
    );
    const { row, records } = await h.settledRecords(id);
    expect(row.outcome).toBe('processed');
    expect(records).toEqual([expect.objectContaining({ status: 'attached', invoiceId: inv.id })]);
  });
});
