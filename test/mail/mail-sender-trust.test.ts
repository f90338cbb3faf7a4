// Who sent a message read by IMAP: the mailbox server's Authentication-Results header, believed
// only for IMAP_AUTHSERV_ID, kept on the message and its files' records and shown in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { invoiceMail, startMailHarness, type MailAccount, type MailHarness } from './mail-harness.ts';

const TRUSTED = 'mx.trust.example';
let h: MailHarness;
let acct: MailAccount;
let pdf: Buffer;
let seq = 0;

beforeAll(async () => {
  h = await startMailHarness({ mailRole: true, config: { imapAuthservId: TRUSTED } });
  acct = await h.account();
  pdf = await makePdf('trust');
});
afterAll(async () => {
  await h?.close();
});

const msgId = () => `<trust-${Date.now().toString(36)}-${seq++}@supplier.example>`;
const authResults = (id: string, domain: string) => `${id}; spf=pass smtp.mailfrom=bounce@${domain}; dkim=pass header.d=${domain}; dmarc=pass header.from=${domain}`;

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
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'NO-SUCH-1.pdf', content: pdf }], {
      from: 'billing@supplier.example', messageId: id, headers: { 'Authentication-Results': authResults(TRUSTED, 'supplier.example') },
    }));
    const { row, record } = await recordOf(id);
    expect(row.sender_verdict).toMatchObject({ source: 'imap-header', dmarc: 'pass', authenticated: true, from: 'billing@supplier.example' });
    expect(record.senderCheck).toBe("Sender authenticated (From billing@supplier.example): DMARC pass, SPF pass (supplier.example), DKIM pass (supplier.example); checked by the mailbox's server");
    const admin = await h.request('GET', '/admin/mail-messages?limit=250', { admin: true });
    expect(admin.body.items.find((m: any) => m.id === row.id).senderCheck).toBe(record.senderCheck);
  });

  it("ignores a header another server wrote (a stranger can write any header), and a forged From is not authenticated", async () => {
    const forgedHeader = msgId();
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'NO-SUCH-2.pdf', content: pdf }], {
      from: 'billing@supplier.example', messageId: forgedHeader, headers: { 'Authentication-Results': authResults('mx.stranger.example', 'supplier.example') },
    }));
    const forgedFrom = msgId();
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'NO-SUCH-3.pdf', content: pdf }], {
      from: 'ceo@supplier.example', messageId: forgedFrom, headers: { 'Authentication-Results': authResults(TRUSTED, 'stranger.example') },
    }));
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
