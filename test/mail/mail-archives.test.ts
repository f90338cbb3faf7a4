// ZIP attachments over a real Dovecot: the mail role hands the archive to intake, which stages
// every PDF in it before the message is moved to Processed; each becomes an attached import. The
// reply to the sender (a real SMTP receiver) names the files in the archive that failed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { archiveImports, invoicesNumbered, makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { authenticated, invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';
import type Mail from 'nodemailer/lib/mailer';

/** Every sender here is authenticated by the mailbox's server (a reply goes to no one else). */
const append = (m: Mail.Options, box?: string) => h.dovecot.append(authenticated(m), box);
let h: MailHarness;
let acct: MailAccount;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startMailHarness({ mailRole: true, config: { smtpUrl: sink.url, mailReplyFrom: 'Invoice intake <no-reply@invoices.example>' } });
  acct = await h.account();
  // its senders are listed: replies may say which invoice numbers exist
  await h.request('PUT', '/v2/account/senders', { key: acct.liveKey, body: { policy: 'anyone', senders: ['@supplier.example'] } });
  await until(() => h.svc.mail!.poller.stats.connects > 0, 10_000, 'the poller to connect');
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

/** The message's reply row once it is decided (no longer pending or sending). */
async function decidedReply(messageId: string) {
  let row: any;
  await until(
    async () => {
      const sql = `select r.* from mail_replies r join mail_messages m on m.id = r.message_id where m.header_message_id = $1 and r.state not in ('pending', 'sending')`;
      row = (await h.db.query(sql, [messageId]))[0];
      return Boolean(row);
    },
    45_000,
    `the reply to ${messageId} to be decided`,
  );
  return row;
}

describe('ZIP attachments by e-mail', () => {
  it('a ZIP of 50 PDFs named after invoice numbers: staged whole before the move, then 50 attached imports of the archive', async () => {
    const invoices = await invoicesNumbered(h.svc.container, acct.liveScope, 'MZ-', 50);
    const id = `<zip-${Date.now().toString(36)}@test.example>`;
    const zip = await makeZip(await pdfsNamed('MZ-', 50));
    await append(invoiceMail(acct.live, [{ filename: 'invoices-2026-03.zip', content: zip, contentType: 'application/zip' }], { messageId: id }));
    const row = await h.moved(id);
    expect(row).toMatchObject({ outcome: 'processed', account_id: acct.id, mode: 'live' });
    const [file] = await h.db.query<{ intake_id: string; filename: string }>('select intake_id, filename from mail_message_files where message_id = $1', [
      row.id,
    ]);
    expect(file.filename).toBe('invoices-2026-03.zip');
    const archive = await h.svc.container.intake.get(acct.liveScope, file.intake_id);
    expect(archive).toMatchObject({ status: 'unpacked', reason: 'Unpacked into 50 files', channel: 'mail', size: zip.length });
    // every file was staged when the message was moved
    const staged = await h.db.query<{ n: number }>('select count(*)::int as n from intake_staging where archive_id = $1', [archive.id]);
    expect(staged[0].n).toBe(50);

    const imports = await archiveImports(h.request, acct.liveKey, archive.id, 50);
    expect(imports.filter((r) => r.status !== 'attached')).toEqual([]);
    expect(imports.map((r) => r.invoice)).toEqual(invoices.map((i) => i.id));
    expect(imports[0]).toMatchObject({ channel: 'mail', sender: 'accounts@supplier.example', filename: 'MZ-0.pdf' });
    expect(await h.dovecot.sources('INBOX')).toHaveLength(0);
    // every file attached: the sender needs no reply
    expect(await decidedReply(id)).toMatchObject({ state: 'not_needed' });
  });

  it('the reply names each file of the archive that failed, with its reason', async () => {
    const [inv] = await invoicesNumbered(h.svc.container, acct.liveScope, 'MR-', 1);
    const from = `zip-${Date.now().toString(36)}@supplier.example`;
    const id = `<zip-reply-${Date.now().toString(36)}@test.example>`;
    const zip = await makeZip([...(await pdfsNamed('MR-', 1)), { name: 'notes.txt', bytes: Buffer.from('not an invoice') }]);
    await append(invoiceMail(acct.live, [{ filename: 'march.zip', content: zip }], { messageId: id, from }));
    expect(await decidedReply(id)).toMatchObject({ state: 'sent', recipient: from });
    await until(() => sink.to(from).length === 1, 30_000, 'the reply at the SMTP server');
    const text = sink.to(from)[0].parsed.text ?? '';
    expect(text).toContain('notes.txt: The file is not a PDF (no %PDF- header); send the invoice as a PDF file');
    expect(text).not.toContain('MR-0.pdf');
    const attached = await h.request('GET', `/v2/invoices/${inv.id}`, { key: acct.liveKey });
    expect(attached.body.document).toBe('MR-0.pdf');
  });

  it('a message over MAIL_MAX_MESSAGE_BYTES: its ZIP part is fetched up to ZIP_MAX_TOTAL_BYTES and unpacked, a larger one is a failed import', async () => {
    const invoices = await invoicesNumbered(h.svc.container, acct.liveScope, 'ML-', 3);
    const id = `<zip-large-${Date.now().toString(36)}@test.example>`;
    const box = 'LargeZip'; // its own mailbox, so only the poller with the low limits reads it
    const zip = await makeZip(await pdfsNamed('ML-', 3, 40_000));
    const tooLarge = await makeZip([{ name: 'X-1.pdf', bytes: randomBytes(1_200_000) }]);
    await append(
      invoiceMail(
        acct.live,
        [
          { filename: 'small.zip', content: zip },
          { filename: 'video.mp4', content: randomBytes(300_000), contentType: 'video/mp4' },
          { filename: 'big.zip', content: tooLarge },
        ],
        { messageId: id },
      ),
      box,
    );
    const large = h.startPoller({
      imapUrl: h.dovecot.url(box),
      mailMaxMessageBytes: 64 * 1024,
      zipMaxTotalBytes: 1024 * 1024,
      mailProcessedMailbox: 'LargeZipDone',
      mailFailedMailbox: 'LargeZipFailed',
    });
    try {
      const row = await h.moved(id);
      const files = await h.db.query<{ intake_id: string; filename: string }>(
        'select intake_id, filename from mail_message_files where message_id = $1 order by filename',
        [row.id],
      );
      const [big, small] = await Promise.all(files.map((f) => h.svc.container.intake.get(acct.liveScope, f.intake_id)));
      expect(big).toMatchObject({
        filename: 'big.zip',
        status: 'failed',
        reason: expect.stringMatching(/^The attachment is larger than 1048576 bytes \(\d+ bytes encoded\) and was not downloaded$/),
      });
      expect(small).toMatchObject({ filename: 'small.zip', status: 'unpacked', reason: 'Unpacked into 3 files' });
      const imports = await archiveImports(h.request, acct.liveKey, small.id, 3);
      expect(imports.map((r) => [r.status, r.invoice])).toEqual(invoices.map((i) => ['attached', i.id]));
      // the headers, the structure, the parts' first bytes and the small archive: not the video, not the big archive
      expect(large.poller.receivedBytes()).toBeLessThan(zip.length * 1.4 + 100_000);
    } finally {
      await large.stop();
    }
  });
});
