// The PDF's own text as evidence, the weakest of all (docs/matching.md, "The PDF's text"), end to
// end over POST /v2/imports: PDFs with meaningless names and no e-invoice whose text names the
// invoice after a label in German, Dutch, English or French attach when the invoice's total is
// written in them too; otherwise they wait and say what their text said. Text read by pdf.js in
// a PDF check thread.
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;

beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 500, intakeBackoffMaxMs: 1000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

/** A one-page PDF with these lines of text (Helvetica), or none at all (a scan: only a drawn box). */
async function textPdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 11, font }));
  if (!lines.length) page.drawRectangle({ x: 50, y: 400, width: 300, height: 200 });
  return Buffer.from(await doc.save());
}

const accountWith = async (invoices: [string, string][]) => {
  const a = await t.accountWith(Object.fromEntries(invoices));
  return { key: a.key, ids: a.invoices };
};
const upload = (key: string, filename: string, bytes: Buffer) => t.importFile(key, filename, bytes);

describe('a number after a label, confirmed by the total', () => {
  it.each([
    ['German', 'RE-2024-0815', '1210.50', ['ACME GmbH', 'Rechnungsnummer: RE-2024-0815', 'Rechnungsdatum: 25.11.2024', 'Gesamtbetrag: 1.210,50 EUR']],
    ['Dutch', '2024.0815', '1210.50', ['Factuurnummer 2024.0815', 'Te betalen: € 1.210,50']],
    ['English', 'INV-000123', '1210.50', ['Invoice no. INV-000123', 'Total due: 1,210.50 EUR']],
    ['French', 'FA-2024-17', '99.00', ['Facture n° FA-2024-17', 'Net à payer : 99,00 €']],
  ])('%s', async (_language, number, total, lines) => {
    const a = await accountWith([
      [number, total],
      ['0815', total],
      ['2024', total],
    ]);
    const rec = await upload(a.key, 'scan.pdf', await textPdf(lines));
    expect(rec).toMatchObject({ status: 'attached', invoice: a.ids[number], matchedBy: 'pdf_text' });
  });
});

describe('not enough: it waits and says what the text said', () => {
  it('the total is not in the text', async () => {
    const a = await accountWith([['RE-2024-0815', '1100.00']]);
    const rec = await upload(a.key, 'scan.pdf', await textPdf(['Rechnungsnummer RE-2024-0815', 'Gesamtbetrag 1.210,50 EUR']));
    expect(rec).toMatchObject({ status: 'waiting', invoice: null });
    expect(rec.reason).toContain("the PDF's text says invoice RE-2024-0815, but not its total 1,100.00");
  });

  it('a scan without text', async () => {
    const a = await accountWith([['RE-2024-0815', '1100.00']]);
    const rec = await upload(a.key, 'scan.pdf', await textPdf([]));
    expect(rec).toMatchObject({ status: 'waiting', invoice: null });
    expect(rec.reason).toContain('the PDF has no text to read (a scan?)');
  });

  it("the text never beats the file's name, even when it names another invoice", async () => {
    const a = await accountWith([
      ['RE-2024-0815', '1210.50'],
      ['RE-2024-0816', '1210.50'],
    ]);
    const rec = await upload(a.key, 'RE-2024-0816.pdf', await textPdf(['Rechnungsnummer RE-2024-0815', 'Gesamtbetrag 1.210,50 EUR']));
    expect(rec).toMatchObject({ status: 'attached', invoice: a.ids['RE-2024-0816'], matchedBy: 'invoice_number' });
  });
});
