// Issue 42 end to end over POST /v2/imports: dates and times in real file names are no numbers
// (a scanner's `Scan 2024-11-25 0815.pdf` is not invoice 0815; `..._2024-11-25_INV-000123.pdf`
// is INV-000123), a scanner's name is not waited for (its PDF's text is read at once), two
// labelled numbers in a text are a conflict, and whichever order a text-only PDF and the hybrid
// PDF of one invoice arrive in, the record of the one that is not the document says which is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, textPdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf } from '../helpers/einvoice.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 500, intakeBackoffMaxMs: 1000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

const TEXT_4711 = ['ACME GmbH', 'Rechnungsnummer: RE-2026-4711', 'Rechnungsdatum: 25.11.2024', 'Gesamtbetrag: 1.210,50 EUR'];
const upload = (key: string, filename: string, bytes: Buffer) => t.importFile(key, filename, bytes);
const historyOf = async (id: string) =>
  (await t.db.query<{ status: string }>('select status from intake_history where intake_id = $1 order by at, seq', [id])).map((r) => r.status);
const documentOf = async (key: string, invoiceId: string) => (await t.request('GET', `/v2/documents/${invoiceId}`, { key })).body;

describe('dates and times in names', () => {
  it('Scan 2024-11-25 0815.pdf is not invoice 0815; Rechnung Nr. 0815 vom 25.11.2024.pdf is, and is not refused', async () => {
    const a = await t.accountWith(['0815', '2024', '1125']);
    const scan = await upload(a.key, 'Scan 2024-11-25 0815.pdf', await makePdf('scanned page'));
    expect(scan).toMatchObject({ status: 'failed', invoice: null, matchedBy: null, reasonCode: 'device_name_nothing_inside' });
    expect(scan.reason).toContain("The file name Scan 2024-11-25 0815 is a scanner's or camera's name, not an invoice number");
    const right = await upload(a.key, 'Rechnung Nr. 0815 vom 25.11.2024.pdf', await makePdf('Rechnung 0815'));
    expect(right).toMatchObject({ status: 'attached', invoice: a.invoices['0815'], matchedBy: 'name_token' });
    expect((await documentOf(a.key, a.invoices['0815'])).filename).toBe('Rechnung Nr. 0815 vom 25.11.2024.pdf');
  });

  it.each([
    ['invoice_2024-11-25_INV-000123.pdf', 'INV-000123'],
    ['RE-E-974-Hetzner_2016-01-19_R0005532486.pdf', 'R0005532486'],
  ])('%s attaches to %s at once: a number after a date is a number of its own', async (filename, number) => {
    const a = await t.accountWith([number, '000123', '2024', '2016']);
    const rec = await upload(a.key, filename, await makePdf(filename));
    expect(rec).toMatchObject({ status: 'attached', invoice: a.invoices[number], matchedBy: 'name_token' });
    expect(await historyOf(rec.id)).toEqual(['received', 'attached']);
  });
});

describe("a scanner's name is not waited for", () => {
  it.each(['scan_0042.pdf', 'IMG_1234.pdf', 'random.pdf'])('%s attaches by its text at once, never waiting', async (filename) => {
    const a = await t.accountWith({ 'RE-2026-4711': '1210.50', '0042': '1210.50', '1234': '1210.50' });
    const rec = await upload(a.key, filename, await textPdf(TEXT_4711));
    expect(rec).toMatchObject({ status: 'attached', invoice: a.invoices['RE-2026-4711'], matchedBy: 'pdf_text' });
    expect(await historyOf(rec.id)).toEqual(['received', 'attached']);
  });

  it("a scanner's name whose text names an invoice not created yet waits, saying the name is a scanner's", async () => {
    const a = await t.accountWith({ 'RE-2026-4700': '1210.50' });
    const rec = await upload(a.key, 'scan_0043.pdf', await textPdf(TEXT_4711));
    expect(rec).toMatchObject({ status: 'waiting', reasonCode: 'waiting_device' });
    expect(rec.reason).toMatch(
      /^Waiting until .+ for an invoice that the PDF names: its file name scan_0043 is a scanner's or camera's name, not an invoice number; the PDF's text says invoice RE-2026-4711, which is no invoice of this account$/,
    );
    // the invoice is created: the file attaches by its text
    const customer = (await t.request('POST', '/v2/customers', { key: a.key, body: { customerCode: 'C-1', name: 'Intake GmbH' } })).body.id;
    const inv = await t.request('POST', '/v2/invoices', {
      key: a.key,
      body: { customer, invoiceNumber: 'RE-2026-4711', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '1210.50' },
    });
    expect(inv.status).toBe(201);
    expect(await t.waitFor(a.key, rec.id, (r) => r.status === 'attached')).toMatchObject({ invoice: inv.body.id, matchedBy: 'pdf_text' });
  });

  it('an account whose invoice number is literally IMG_1234 gets IMG_1234.pdf by its name', async () => {
    const a = await t.accountWith(['IMG_1234', '1234']);
    expect(await upload(a.key, 'IMG_1234.pdf', await makePdf('camera'))).toMatchObject({
      status: 'attached',
      invoice: a.invoices.IMG_1234,
      matchedBy: 'invoice_number',
    });
  });
});

describe('two labelled numbers in the text', () => {
  it('that both exist, with the same total: refused, naming both', async () => {
    const a = await t.accountWith({ 'RE-2026-4712': '1210.50', 'RE-2026-4713': '1210.50' });
    const rec = await upload(
      a.key,
      'random.pdf',
      await textPdf(['Rechnungsnummer: RE-2026-4712', 'Rechnungsnummer: RE-2026-4713', 'Gesamtbetrag: 1.210,50 EUR']),
    );
    expect(rec).toMatchObject({ status: 'failed', invoice: null, matchedBy: null, reasonCode: 'pdf_text_names_several' });
    expect(rec.reason).toBe(
      "The PDF's text names several invoices (RE-2026-4712 or RE-2026-4713), so it cannot say which one it is; rename the file to the invoice's number or assign it",
    );
  });
});

describe('a text-only PDF and the hybrid PDF of one invoice, in both orders', () => {
  const hybrid = () => einvoicePdf({ 'factur-x.xml': ciiXml('RE-2026-4711') });

  it('the hybrid first: the text-only file is refused, naming the document and its stronger evidence', async () => {
    const a = await t.accountWith({ 'RE-2026-4711': '1210.50' });
    const first = await upload(a.key, 'x1.pdf', await hybrid());
    expect(first).toMatchObject({ status: 'attached', matchedBy: 'einvoice' });
    const second = await upload(a.key, 'printed.pdf', await textPdf(TEXT_4711));
    expect(second).toMatchObject({ status: 'failed', invoice: a.invoices['RE-2026-4711'], reasonCode: 'document_kept' });
    expect(second.reason).toBe(
      'Invoice RE-2026-4711 already has x1.pdf, attached by its e-invoice; this file was found by the invoice number and total in its text, which does not replace it: send it as RE-2026-4711.pdf or assign it to replace the document',
    );
    expect((await documentOf(a.key, a.invoices['RE-2026-4711'])).id).toBe(first.document);
  });

  it("the text-only file first: the hybrid replaces it, and the text-only file's record says so, naming the file that replaced it", async () => {
    const a = await t.accountWith({ 'RE-2026-4711': '1210.50' });
    const first = await upload(a.key, 'printed.pdf', await textPdf(TEXT_4711));
    expect(first).toMatchObject({ status: 'attached', matchedBy: 'pdf_text', reason: null });
    const second = await upload(a.key, 'x1.pdf', await hybrid());
    expect(second).toMatchObject({ status: 'attached', matchedBy: 'einvoice' });
    expect((await documentOf(a.key, a.invoices['RE-2026-4711'])).id).toBe(second.document);
    const replaced = (await t.request('GET', `/v2/imports/${first.id}`, { key: a.key })).body;
    expect(replaced).toMatchObject({ status: 'attached', matchedBy: 'pdf_text', reasonCode: 'document_replaced' });
    expect(replaced.reason).toBe(
      `No longer the invoice's document: x1.pdf replaced it as invoice RE-2026-4711's document, found by its e-invoice, which ranks at least as high as this file's evidence`,
    );
    expect(await historyOf(first.id)).toEqual(['received', 'attached', 'attached']);
  });
});
