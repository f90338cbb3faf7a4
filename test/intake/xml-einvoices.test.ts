// XML e-invoices on their own (docs/matching.md, "XML e-invoices"), end to end over
// POST /v2/imports with CII and UBL invoices and credit notes (test/helpers/xml-einvoices.ts): each attaches
// to the invoice it names as a PDF rendered from it, which embeds the XML byte for byte as its
// associated file (/AF, AFRelationship /Source), says so on the page, and keeps the XML
// downloadable. Totals that differ from the invoice's, and XML that is no invoice, are refused.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, type PDFHexString, PDFName, type PDFRawStream, type PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciiXml, einvoicePdf, orderXXml } from '../helpers/einvoice.ts';
import { SAMPLES, sampleXml, totalsOf } from '../helpers/xml-einvoices.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;

beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 500, intakeBackoffMaxMs: 1000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

async function accountWith(invoiceNumber: string, total: string) {
  const a = await t.accountWith({ [invoiceNumber]: total });
  return { key: a.key, invoiceId: a.invoices[invoiceNumber] };
}
const upload = (key: string, filename: string, bytes: Buffer) => t.importFile(key, filename, bytes);

/** The catalog's associated files: name, relationship, subtype and bytes of each. */
async function associatedFiles(pdf: Buffer) {
  const doc = await PDFDocument.load(pdf);
  const af = doc.catalog.lookup(PDFName.of('AF'), PDFArray);
  return Array.from({ length: af.size() }, (_, i) => {
    const spec = af.lookup(i, PDFDict);
    const stream = spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')) as PDFRawStream;
    return {
      name: (spec.lookup(PDFName.of('UF')) as PDFHexString | PDFString).decodeText(),
      relationship: String(spec.lookup(PDFName.of('AFRelationship'))),
      subtype: String(stream.dict.lookup(PDFName.of('Subtype'))),
      bytes: Buffer.from(decodePDFRawStream(stream).decode()),
    };
  });
}

function pdfText(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-xml-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', path.join(dir, 'in.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const money = (cents: number) => (cents / 100).toFixed(2);

describe('XML e-invoices', () => {
  it.each(SAMPLES.map((s) => [s.label, s] as const))('%s attaches as a PDF that embeds it unchanged', async (label, s) => {
    // a credit note is an invoice with a negative total (docs/matching.md, "Credit notes")
    const a = await accountWith(s.number, money((s.creditNote ? -1 : 1) * totalsOf(s).grand));
    const xml = Buffer.from(sampleXml(s));
    const file = `${label.split(',')[0].replace(/\W+/g, '-')}.xml`;
    const rec = await upload(a.key, file, xml);
    expect(rec).toMatchObject({ status: 'attached', invoice: a.invoiceId, matchedBy: 'einvoice' });
    expect(rec.reason).toMatch(/^Rendered as a PDF from the e-invoice XML, which is embedded in it as (xrechnung|factur-x)\.xml and kept as the original$/);

    const meta = await t.request('GET', `/v2/documents/${a.invoiceId}`, { key: a.key });
    expect(meta.body).toMatchObject({ filename: file.replace(/\.xml$/, '.pdf'), mediatype: 'application/pdf' });
    expect(meta.body._links.original.href).toMatch(/\/content\?format=xml$/);
    const pdf = (await t.request('GET', `/v2/documents/${a.invoiceId}/content`, { key: a.key })).raw;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const [embedded, ...more] = await associatedFiles(pdf);
    expect(more).toEqual([]);
    expect(embedded).toMatchObject({ relationship: '/Source', subtype: '/text#2Fxml' });
    expect(embedded.name).toMatch(/^(xrechnung|factur-x)\.xml$/);
    expect(embedded.bytes.equals(xml)).toBe(true);
    const text = pdfText(pdf);
    expect(text).toContain(s.number.split(' ')[0]);
    expect(text).toMatch(/invoice-intake/);
    expect(text).toContain(embedded.name);

    const original = await t.request('GET', `/v2/documents/${a.invoiceId}/content?format=xml`, { key: a.key });
    expect(original.status).toBe(200);
    expect(original.raw.equals(xml)).toBe(true);
    expect(original.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^attachment; /),
      'content-security-policy': expect.stringMatching(/\bsandbox\b/),
    });
  });
});

describe('refused with what was wrong', () => {
  it('totals that are not the invoice total: both amounts named', async () => {
    const a = await accountWith('RE-2026-04711', '300.00');
    const rec = await upload(a.key, 'rechnung.xml', Buffer.from(sampleXml(SAMPLES[0])));
    expect(rec).toMatchObject({ status: 'failed', invoice: null });
    expect(rec.reason).toBe(
      "The e-invoice says invoice RE-2026-04711 with a total of 1,405.66 EUR; the invoice's total is 300.00: correct the invoice's total or send the matching file",
    );
  });

  it('a partly prepaid invoice attaches when its total is the amount due', async () => {
    const prepaid = SAMPLES.find((s) => s.prepaidCents)!;
    const a = await accountWith(prepaid.number, money(totalsOf(prepaid).due));
    expect(await upload(a.key, 'facture.xml', Buffer.from(sampleXml(prepaid)))).toMatchObject({ status: 'attached', matchedBy: 'einvoice' });
  });

  it('the same check for the XML inside a PDF', async () => {
    const a = await accountWith('FX-2026-1', '100.00');
    const xml = ciiXml('FX-2026-1').replace(
      '</rsm:ExchangedDocument>',
      `</rsm:ExchangedDocument><rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:GrandTotalAmount>119.00</ram:GrandTotalAmount><ram:DuePayableAmount>119.00</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
      </ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction>`,
    );
    const rec = await upload(a.key, 'FX-2026-1.pdf', await einvoicePdf({ 'factur-x.xml': xml }));
    expect(rec).toMatchObject({
      status: 'failed',
      reason:
        "The e-invoice says invoice FX-2026-1 with a total of 119.00 EUR; the invoice's total is 100.00: correct the invoice's total or send the matching file",
    });
  });

  it.each([
    [
      'not well-formed',
      '<?xml version="1.0"?>\n<Invoice>\n  <ID>1</ID>\n</Invoce>',
      /^The XML file cannot be read: it is not well-formed XML \(at line 4\); export it again from the program that made it$/,
    ],
    ['an order', orderXXml('ORD-1'), /^The XML file is an order \(Order-X\), not an invoice$/],
    ['no number', ciiXml(''), /^The XML e-invoice has no invoice number \(BT-1\)$/],
    ['no e-invoice', '<?xml version="1.0"?><catalog><book/></catalog>', /^The XML file is not an e-invoice \(its root element is catalog\); send a UBL or CII/],
  ])('%s: failed on arrival', async (_what, xml, reason) => {
    const a = await accountWith('X-1', '1.00');
    const res = await t.request('POST', '/v2/imports', { key: a.key, body: { Filename: 'x.xml', Content: Buffer.from(xml).toString('base64') } });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('failed');
    expect(res.body.reason).toMatch(reason);
  });

  it('a document that was not rendered from XML has no XML original', async () => {
    const a = await accountWith('X-2', '1.00');
    expect((await t.request('GET', `/v2/documents/${a.invoiceId}/content?format=xml`, { key: a.key })).status).toBe(404);
    expect((await t.request('GET', `/v2/documents/${a.invoiceId}/content?format=docx`, { key: a.key })).status).toBe(400);
  });
});
