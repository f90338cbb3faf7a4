// The e-mail channel's large messages: over MAIL_MAX_MESSAGE_BYTES a poller reads the body
// structure and downloads only the PDF parts, named as in a whole message. Each test runs its own
// poller on its own mailbox (real Dovecot, the real intake pipeline).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { invoiceMail, rawPart, startMailHarness, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;
let seq = 0;

beforeAll(async () => {
  h = await startMailHarness();
  acct = await h.account();
});
afterAll(() => h?.close());

const msgId = () => `<large-${Date.now().toString(36)}-${seq++}@test.example>`;

describe('large messages', () => {
  it('downloads only the PDF parts of a message over MAIL_MAX_MESSAGE_BYTES, and records PDFs over 5 MB as failed', async () => {
    // a second poller with a low limit, on its own mailbox so the main one does not take the message
    const box = 'Large';
    // a non-ASCII name: read here from the body structure (RFC 2231), not from the whole message
    const inv = await h.invoice(acct.liveKey, `GROẞ-${Date.now().toString(36)}-Überweisung`);
    const id = msgId();
    const bigPdf = Buffer.concat([await makePdf('big'), randomBytes(5.5 * 1024 * 1024)]);
    const raw = await h.dovecot.append(
      invoiceMail(
        acct.live,
        [
          { filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('small one', 40_000) },
          { filename: 'video.mp4', content: randomBytes(900_000), contentType: 'video/mp4' },
          { filename: 'huge.pdf', content: bigPdf },
          { filename: 'terms.pdf', content: Buffer.from('these are not PDF bytes'), contentType: 'application/pdf' },
        ],
        { messageId: id },
      ),
      box,
    );
    expect(raw.length).toBeGreaterThan(7_000_000);
    const large = h.startPoller({
      imapUrl: h.dovecot.url(box),
      mailMaxMessageBytes: 256 * 1024,
      mailProcessedMailbox: 'LargeDone',
      mailFailedMailbox: 'LargeFailed',
    });
    const { row, records } = await h.settledRecords(id);
    expect(row.outcome).toBe('processed');
    const byName = Object.fromEntries(records.map((r) => [r.filename, r]));
    expect(byName[`${inv.invoiceNumber}.pdf`]).toMatchObject({ status: 'attached', invoiceId: inv.id });
    expect(byName['huge.pdf']).toMatchObject({ status: 'failed' });
    expect(byName['huge.pdf'].reason).toMatch(/larger than/);
    expect(byName['terms.pdf']).toMatchObject({ status: 'failed', reason: 'The attachment terms.pdf is not a PDF' });
    expect(records).toHaveLength(3);
    // the message was 7 MB; the poller read its headers, structure and the small PDF only
    expect(large.poller.receivedBytes()).toBeLessThan(400_000);
    await large.stop();
  });

  it('names the PDF parts of a large message as a whole one: RFC 2047 in a legacy charset, RFC 2231 in windows-1252', async () => {
    const box = 'LargeNames';
    const stamp = `${Date.now().toString(36)}-${seq++}`;
    const latin1 = await h.invoice(acct.liveKey, `Größe-${stamp}`);
    const euro = await h.invoice(acct.liveKey, `Factuur-€-${stamp}`);
    const q = [...Buffer.from(`${latin1.invoiceNumber}.pdf`, 'latin1')].map((b) => `=${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const id = msgId();
    await h.dovecot.append(
      invoiceMail(
        acct.live,
        [
          rawPart(`Content-Type: application/pdf\r\nContent-Disposition: attachment; filename="=?ISO-8859-1?Q?${q}?="`, await makePdf('latin1')),
          // € is 0x80 in windows-1252
          rawPart(
            `Content-Type: application/pdf\r\nContent-Disposition: attachment; filename*=windows-1252''Factuur-%80-${stamp}.pdf`,
            await makePdf('cp1252'),
          ),
        ],
        { messageId: id },
      ),
      box,
    );
    // every message is large to this poller
    const large = h.startPoller({
      imapUrl: h.dovecot.url(box),
      mailMaxMessageBytes: 1024,
      mailProcessedMailbox: 'LargeNamesDone',
      mailFailedMailbox: 'LargeNamesFailed',
    });
    const { records } = await h.settledRecords(id);
    expect(h.logs.some((l) => l.includes('downloaded its PDF parts only') && l.includes(`"parts":2`))).toBe(true);
    expect(records).toHaveLength(2);
    expect(records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'attached', invoiceId: latin1.id, filename: `${latin1.invoiceNumber}.pdf` }),
        expect.objectContaining({ status: 'attached', invoiceId: euro.id, filename: `${euro.invoiceNumber}.pdf` }),
      ]),
    );
    await large.stop();
  });
});
