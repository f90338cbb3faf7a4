// Matching by the e-mail subject, over a real Dovecot and the mail role: a message's only PDF,
// named scan0001.pdf, attaches to the invoice whose number the subject carries; with several
// files the subject names none of them, and a reply's subject gives way to a file's own name
// (docs/matching.md); a part named *.pdf that is no PDF gets a failed record that says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, sampleXml } from '../helpers/xml-einvoices.ts';
import type { ImportRecord } from '../../src/domain/intake.ts';
import { ciiXml, einvoicePdf } from '../helpers/einvoice.ts';
import { makePdf, textPdf } from '../helpers/fixtures.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';

let h: MailHarness;
let acct: MailAccount;

beforeAll(async () => {
  h = await startMailHarness({ mailRole: true });
  acct = await h.account();
  await until(() => h.svc.mail!.poller.stats.connects > 0, 10_000, 'the poller to connect');
});
afterAll(() => h?.close());

/** The account's records of these file names, once each is attached, failed or waiting. */
async function settled(...filenames: string[]): Promise<Record<string, ImportRecord>> {
  let found: ImportRecord[] = [];
  await until(
    async () => {
      found = (await h.records(acct.liveScope)).filter((r) => filenames.includes(r.filename));
      return found.length === filenames.length && found.every((r) => r.status === 'attached' || r.status === 'failed' || r.status === 'waiting');
    },
    45_000,
    `records of ${filenames.join(', ')} to settle`,
  );
  return Object.fromEntries(found.map((r) => [r.filename, r]));
}

const documentOf = async (invoiceId: string) => (await h.svc.container.documents.get(acct.liveScope, invoiceId)).filename;

describe('the e-mail subject', () => {
  it("attaches a message's only PDF, named scan0001.pdf, to the invoice the subject names", async () => {
    const inv = await h.invoice(acct.liveKey, `2026-${Date.now().toString(36)}`);
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'scan0001.pdf', content: await makePdf('subject') }], { subject: `Factuur ${inv.invoiceNumber}` }),
    );
    const records = await settled('scan0001.pdf');
    expect(records['scan0001.pdf']).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'subject' });
  });

  // Issue 28: the terms beside the invoice used to attach by the subject and replace the invoice
  it.each([
    ['invoice first', false],
    ['terms first', true],
  ])('names none of several files: %s, the invoice stays, the terms never attach', async (_order, termsFirst) => {
    const inv = await h.invoice(acct.liveKey, `RE-${Date.now().toString(36)}`);
    const terms = `AGB-${termsFirst ? 1 : 2}.pdf`;
    const parts = [
      { filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('the invoice') },
      { filename: terms, content: await makePdf('terms and conditions') },
    ];
    await h.dovecot.append(invoiceMail(acct.live, termsFirst ? parts.reverse() : parts, { subject: `Rechnung ${inv.invoiceNumber}` }));
    const records = await settled(`${inv.invoiceNumber}.pdf`, terms);
    expect(records[`${inv.invoiceNumber}.pdf`]).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'invoice_number' });
    expect(records[terms]).toMatchObject({ status: 'waiting', invoiceId: null });
    expect(records[terms].reason).toContain(
      `the e-mail's subject names ${inv.invoiceNumber}, but the message carried 2 files, so its subject cannot say which one is the invoice`,
    );
    expect(await documentOf(inv.id)).toBe(`${inv.invoiceNumber}.pdf`);
  });

  it("of a reply gives way to the file's own name: it waits for that invoice and attaches there", async () => {
    // digits only: a number-shaped name (docs/matching.md), whatever the clock says
    const old = await h.invoice(acct.liveKey, `RE-${Date.now() % 1e8}-0821`);
    await h.dovecot.append(invoiceMail(acct.live, [{ filename: `${old.invoiceNumber}.pdf`, content: await makePdf('the old one') }]));
    await settled(`${old.invoiceNumber}.pdf`);
    const newer = `RE-${Date.now() % 1e8}-0899`;
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: `${newer}.pdf`, content: await makePdf('the new one') }], { subject: `AW: Rechnung ${old.invoiceNumber}` }),
    );
    const waiting = (await settled(`${newer}.pdf`))[`${newer}.pdf`];
    expect(waiting).toMatchObject({ status: 'waiting', invoiceId: null });
    expect(waiting.reason).toContain(`the reply's subject names ${old.invoiceNumber}, but the file's own evidence comes first`);
    const created = await h.invoice(acct.liveKey, newer);
    await until(
      async () => (await h.records(acct.liveScope)).some((r) => r.id === waiting.id && r.status === 'attached'),
      45_000,
      "the reply's file to attach",
    );
    const attached = (await h.records(acct.liveScope)).find((r) => r.id === waiting.id)!;
    expect(attached).toMatchObject({ invoiceId: created.id, matchedBy: 'invoice_number' });
    expect(attached.reason).toContain(`overruled: the reply's subject, which names ${old.invoiceNumber}`);
    expect(await documentOf(old.id)).toBe(`${old.invoiceNumber}.pdf`);
  });
});

describe('XML e-invoices in mail', () => {
  it.each([
    ['application/xml', 'xrechnung.xml'],
    ['text/xml', 'invoice.XML'],
    ['application/octet-stream', 'rechnung.xml'],
  ])('a %s part (%s) attaches as the PDF rendered from it', async (contentType, filename) => {
    const number = `XR-${Date.now() % 1e8}`;
    const inv = await h.invoice(acct.liveKey, number);
    expect(
      (await h.request('PATCH', `/v2/invoices/${inv.id}`, { key: acct.liveKey, body: { invoiceTotal: '1405.66', invoiceBalance: '1405.66' } })).status,
    ).toBe(200);
    const xml = sampleXml({ ...SAMPLES[0], number });
    await h.dovecot.append(invoiceMail(acct.live, [{ filename, content: Buffer.from(xml), contentType }], { subject: 'XRechnung' }));
    const records = await settled(filename);
    expect(records[filename]).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'einvoice' });
    const doc = await h.svc.container.documents.original(acct.liveScope, inv.id);
    expect(doc.bytes.toString('utf8')).toBe(xml);
  });
});

describe('parts named *.pdf that are no PDF', () => {
  it('get a failed record "... is not a PDF" beside the real PDF', async () => {
    const inv = await h.invoice(acct.liveKey);
    await h.dovecot.append(
      invoiceMail(acct.live, [
        { filename: `${inv.invoiceNumber}.pdf`, content: await makePdf('real') },
        { filename: 'terms.pdf', content: Buffer.from('these are not PDF bytes'), contentType: 'application/pdf' },
      ]),
    );
    const records = await settled(`${inv.invoiceNumber}.pdf`, 'terms.pdf');
    expect(records[`${inv.invoiceNumber}.pdf`]).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'invoice_number' });
    expect(records['terms.pdf']).toMatchObject({ status: 'failed', channel: 'mail', reason: 'The attachment terms.pdf is not a PDF' });
  });

  it('alone in a message: that failed record, not "No PDF attached"', async () => {
    await h.dovecot.append(
      invoiceMail(acct.live, [{ filename: 'Invoice-March.PDF', content: Buffer.from('<html>phishing</html>'), contentType: 'application/octet-stream' }]),
    );
    const records = await settled('Invoice-March.PDF');
    expect(records['Invoice-March.PDF']).toMatchObject({ status: 'failed', reason: 'The attachment Invoice-March.PDF is not a PDF' });
    expect((await h.records(acct.liveScope)).filter((r) => r.reason === 'No PDF attached')).toEqual([]);
  });
});

describe("issue 42's real names and PDFs, by e-mail", () => {
  const TEXT = ['Rechnungsnummer: RE-2026-4711', 'Gesamtbetrag: 100,00 EUR'];
  /** one message per file (a message's only file: its subject names nothing here), each settled in turn */
  const mailed = async (account: MailAccount, filename: string, content: Buffer) => {
    await h.dovecot.append(invoiceMail(account.live, [{ filename, content }], { subject: 'Scan' }));
    let found: ImportRecord | undefined;
    await until(
      async () => {
        found = (await h.records(account.liveScope)).find((r) => r.filename === filename && r.status !== 'received');
        return found !== undefined;
      },
      45_000,
      `the record of ${filename}`,
    );
    return found!;
  };

  it('Scan 2024-11-25 0815.pdf does not attach to 0815; Rechnung Nr. 0815 vom 25.11.2024.pdf does; the dated names attach to their numbers', async () => {
    const b = await h.account();
    const inv = await h.invoice(b.liveKey, '0815');
    const numbered = await h.invoice(b.liveKey, 'INV-000123');
    const hetzner = await h.invoice(b.liveKey, 'R0005532486');
    expect(await mailed(b, 'Scan 2024-11-25 0815.pdf', await makePdf('scanned'))).toMatchObject({
      status: 'failed',
      invoiceId: null,
      reasonCode: 'device_name_nothing_inside',
    });
    expect(await mailed(b, 'Rechnung Nr. 0815 vom 25.11.2024.pdf', await makePdf('Rechnung 0815'))).toMatchObject({
      status: 'attached',
      invoiceId: inv.id,
      matchedBy: 'name_token',
    });
    expect(await mailed(b, 'invoice_2024-11-25_INV-000123.pdf', await makePdf('dated'))).toMatchObject({
      status: 'attached',
      invoiceId: numbered.id,
      matchedBy: 'name_token',
    });
    expect(await mailed(b, 'RE-E-974-Hetzner_2016-01-19_R0005532486.pdf', await makePdf('Hetzner'))).toMatchObject({
      status: 'attached',
      invoiceId: hetzner.id,
      matchedBy: 'name_token',
    });
  });

  it('scan_0042.pdf attaches by its text without waiting; two labelled numbers are refused, naming both; the hybrid after it replaces it and its record says so', async () => {
    const b = await h.account();
    const inv = await h.invoice(b.liveKey, 'RE-2026-4711');
    await h.invoice(b.liveKey, 'RE-2026-4712');
    await h.invoice(b.liveKey, 'RE-2026-4713');
    const scan = await mailed(b, 'scan_0042.pdf', await textPdf(TEXT));
    expect(scan).toMatchObject({ status: 'attached', invoiceId: inv.id, matchedBy: 'pdf_text' });
    const two = await mailed(b, 'random.pdf', await textPdf(['Rechnungsnummer: RE-2026-4712', 'Rechnungsnummer: RE-2026-4713', 'Gesamtbetrag: 100,00 EUR']));
    expect(two).toMatchObject({ status: 'failed', invoiceId: null, reasonCode: 'pdf_text_names_several' });
    expect(two.reason).toContain('(RE-2026-4712 or RE-2026-4713)');
    expect(await mailed(b, 'x1.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('RE-2026-4711') }))).toMatchObject({
      status: 'attached',
      invoiceId: inv.id,
      matchedBy: 'einvoice',
    });
    const replaced = (await h.records(b.liveScope)).find((r) => r.id === scan.id)!;
    expect(replaced).toMatchObject({ status: 'attached', reasonCode: 'document_replaced' });
    expect(replaced.reason).toContain("x1.pdf replaced it as invoice RE-2026-4711's document, found by its e-invoice");
    expect((await h.svc.container.documents.get(b.liveScope, inv.id)).filename).toBe('x1.pdf');
  });
});
