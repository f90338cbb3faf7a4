// Matching by the e-mail subject, over a real Dovecot and the mail role: a PDF named scan0001.pdf
// attaches to the invoice whose number the subject carries; a part named *.pdf that is no PDF
// gets a failed record that says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntakeRecord } from '../../src/domain/intake.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;

beforeAll(async () => {
  h = await startMailHarness({ mailRole: true });
  acct = await h.account();
  await until(() => h.svc.mail!.poller.stats.connects > 0, 10_000, 'the poller to connect');
});
afterAll(() => h?.close());

/** The account's records of these file names, once each is attached or failed. */
async function settled(...filenames: string[]): Promise<Record<string, IntakeRecord>> {
  let found: IntakeRecord[] = [];
  await until(async () => {
    found = (await h.records(acct.liveScope)).filter((r) => filenames.includes(r.filename));
    return found.length === filenames.length && found.every((r) => r.status === 'attached' || r.status === 'failed');
  }, 45_000, `records of ${filenames.join(', ')} to settle`);
  return Object.fromEntries(found.map((r) => [r.filename, r]));
}

describe('the e-mail subject', () => {
  it('a PDF named scan0001.pdf attaches to the invoice the subject names (before a number in the file name)', async () => {
    const inv = await h.invoice(acct.liveKey, `2026-${Date.now().toString(36)}`);
    const other = await h.invoice(acct.liveKey, `${inv.invoiceNumber}-B`);
    await h.dovecot.append(invoiceMail(acct.live, [
      { filename: 'scan0001.pdf', content: await makePdf('subject') },
      { filename: `copy ${other.invoiceNumber}.pdf`, content: await makePdf('subject, not the name') },
    ], { subject: `Re: Factuur ${inv.invoiceNumber} (kopie)` }));
    const records = await settled('scan0001.pdf', `copy ${other.invoiceNumber}.pdf`);
    expect(records['scan0001.pdf']).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'subject' });
    expect(records[`copy ${other.invoiceNumber}.pdf`]).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'subject' });
  });
});

describe('parts named *.pdf that are no PDF', () => {
  it('get a failed record "... is not a PDF" beside the real PDF', async () => {
    const inv = await h.invoice(acct.liveKey);
    await h.dovecot.append(invoiceMail(acct.live, [
      { filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('real') },
      { filename: 'terms.pdf', content: Buffer.from('these are not PDF bytes'), contentType: 'application/pdf' },
    ]));
    const records = await settled(`${inv.invoiceNumber}.pdf`, 'terms.pdf');
    expect(records[`${inv.invoiceNumber}.pdf`]).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'invoice_number' });
    expect(records['terms.pdf']).toMatchObject({ status: 'failed', channel: 'mail', reason: 'The attachment terms.pdf is not a PDF' });
  });

  it('alone in a message: that failed record, not "No PDF attached"', async () => {
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: 'Invoice-March.PDF', content: Buffer.from('<html>phishing</html>'), contentType: 'application/octet-stream' }]));
    const records = await settled('Invoice-March.PDF');
    expect(records['Invoice-March.PDF']).toMatchObject({ status: 'failed', reason: 'The attachment Invoice-March.PDF is not a PDF' });
    expect((await h.records(acct.liveScope)).filter((r) => r.reason === 'No PDF attached')).toEqual([]);
  });
});
