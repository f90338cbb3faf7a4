// The matching rules (docs/matching.md) over FTPS with curl as a process: a scanner's name against
// short invoice numbers waits, a conflicting e-invoice is refused, a weaker match does not replace
// the document, and a CAdES .pdf.p7m is unwrapped. Same decision as every channel; this proves the
// channel hands the file over as it came.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf, textPdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf } from '../helpers/einvoice.ts';
import { SAMPLES, sampleXml } from '../helpers/xml-einvoices.ts';
import { curlUpload } from './ftp-clients.ts';
import { ftpTestFile } from './ftp-harness.ts';

const t = ftpTestFile();
const CMS = path.join(import.meta.dirname, '../fixtures/mail/cms');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Uploads `bytes` as `name` with curl (FTPS) and returns the record once it is no longer `received`. */
async function send(key: string, user: string, name: string, bytes: Buffer) {
  const file = path.join(t.dir, `${sha(bytes).slice(0, 12)}.bin`);
  fs.writeFileSync(file, bytes);
  const res = await curlUpload(t.port, user, key, file, encodeURIComponent(name), { tls: true });
  expect(res.code, res.stderr).toBe(0);
  let rec: any;
  await expect
    .poll(async () => (rec = (await t.imports(key)).find((r: any) => r.filename === name))?.status, { timeout: 45_000 })
    .toMatch(/attached|failed|waiting/);
  return rec;
}

describe('matching over FTPS', () => {
  it("IMG_0123.pdf and 2024-11-25.pdf attach to none (a device's name on a PDF that names nothing is refused at once); INV_000123.pdf attaches to INV-000123, not 000123", async () => {
    const a = await t.ftpAccount();
    for (const n of ['0123', '2024', '000123']) await t.invoice(a.liveKey, n);
    const inv = await t.invoice(a.liveKey, 'INV-000123');
    expect(await send(a.liveKey, a.ftpUsername, 'IMG_0123.pdf', await makePdf('camera'))).toMatchObject({
      status: 'failed',
      invoice: null,
      reasonCode: 'device_name_nothing_inside',
    });
    expect(await send(a.liveKey, a.ftpUsername, '2024-11-25.pdf', await makePdf('dated'))).toMatchObject({
      status: 'failed',
      invoice: null,
      reasonCode: 'device_name_nothing_inside',
    });
    expect(await send(a.liveKey, a.ftpUsername, 'INV_000123.pdf', await makePdf('separators'))).toMatchObject({
      status: 'attached',
      invoice: inv.id,
      matchedBy: 'name_token',
    });
  });

  it("an e-invoice naming another existing invoice than the file's name is refused, naming both", async () => {
    const a = await t.ftpAccount();
    const named = await t.invoice(a.liveKey, `RE-${Date.now() % 1e8}`);
    const other = await t.invoice(a.liveKey, `${Date.now() % 1e8}7`);
    const rec = await send(a.liveKey, a.ftpUsername, `${named.invoiceNumber}.pdf`, await einvoicePdf({ 'factur-x.xml': ciiXml(other.invoiceNumber) }));
    expect(rec).toMatchObject({ status: 'failed', invoice: null });
    expect(rec.reason).toBe(`The file's name says ${named.invoiceNumber}, but its e-invoice says ${other.invoiceNumber}; rename the file or assign it`);
    expect(await t.documentsOf(named.id)).toEqual([]);
  });

  it('a number in a name does not replace the document its exact name attached', async () => {
    const a = await t.ftpAccount();
    const inv = await t.invoice(a.liveKey, `${Date.now() % 1e8}-0500`);
    expect(await send(a.liveKey, a.ftpUsername, `${inv.invoiceNumber}.pdf`, await makePdf('exact'))).toMatchObject({ status: 'attached' });
    const weaker = await send(a.liveKey, a.ftpUsername, `Factuur ${inv.invoiceNumber}.pdf`, await makePdf('weaker'));
    expect(weaker).toMatchObject({ status: 'failed', invoice: inv.id });
    expect(weaker.reason).toContain('attached by its name; this file was found by a number in its name, which does not replace it');
    expect((await t.documentsOf(inv.id)).filter((d) => !d.deleted_at).map((d) => d.filename)).toEqual([`${inv.invoiceNumber}.pdf`]);
  });

  it('an XML e-invoice (.xml) attaches as the PDF rendered from it', async () => {
    const a = await t.ftpAccount();
    const inv = await t.invoice(a.liveKey, SAMPLES[0].number);
    expect((await t.request('PATCH', `/v2/invoices/${inv.id}`, { key: a.liveKey, body: { invoiceTotal: '1405.66', invoiceBalance: '1405.66' } })).status).toBe(
      200,
    );
    const rec = await send(a.liveKey, a.ftpUsername, 'xrechnung-123456XX.xml', Buffer.from(sampleXml(SAMPLES[0])));
    expect(rec).toMatchObject({ status: 'attached', invoice: inv.id, matchedBy: 'einvoice' });
    expect((await t.documentsOf(inv.id))[0].filename).toBe('xrechnung-123456XX.pdf');
  });

  it('a CAdES RE-....pdf.p7m is unwrapped: the document is the PDF inside', async () => {
    const a = await t.ftpAccount();
    const inv = await t.invoice(a.liveKey, `RE-${Date.now() % 1e8}-0848`);
    const rec = await send(a.liveKey, a.ftpUsername, `${inv.invoiceNumber}.pdf.p7m`, fs.readFileSync(path.join(CMS, 'signed.der')));
    expect(rec).toMatchObject({ status: 'attached', invoice: inv.id, matchedBy: 'invoice_number' });
    const content = await t.request('GET', `/v2/documents/${inv.id}/content`, { key: a.liveKey });
    expect(content.status).toBe(200);
    const doc = (await t.documentsOf(inv.id))[0];
    expect(doc.filename).toBe(`${inv.invoiceNumber}.pdf`);
    const stored = await t.db.query<{ sha256: string }>('select sha256 from documents where id = $1', [doc.id]);
    expect(stored[0].sha256).toBe(sha(fs.readFileSync(path.join(CMS, 'invoice.pdf'))));
  });

  describe("issue 42's real names and PDFs, over FTPS", () => {
    const TEXT = ['Rechnungsnummer: RE-2026-4711', 'Gesamtbetrag: 100,00 EUR'];

    it('Scan 2024-11-25 0815.pdf does not attach to 0815; Rechnung Nr. 0815 vom 25.11.2024.pdf does; the dated names attach to their numbers', async () => {
      const a = await t.ftpAccount();
      const inv = await t.invoice(a.liveKey, '0815');
      const hetzner = await t.invoice(a.liveKey, 'R0005532486');
      const numbered = await t.invoice(a.liveKey, 'INV-000123');
      await t.invoice(a.liveKey, '2024');
      expect(await send(a.liveKey, a.ftpUsername, 'Scan 2024-11-25 0815.pdf', await makePdf('scanned'))).toMatchObject({
        status: 'failed',
        invoice: null,
        reasonCode: 'device_name_nothing_inside',
      });
      expect(await send(a.liveKey, a.ftpUsername, 'Rechnung Nr. 0815 vom 25.11.2024.pdf', await makePdf('Rechnung 0815'))).toMatchObject({
        status: 'attached',
        invoice: inv.id,
        matchedBy: 'name_token',
      });
      expect(await send(a.liveKey, a.ftpUsername, 'invoice_2024-11-25_INV-000123.pdf', await makePdf('dated'))).toMatchObject({
        status: 'attached',
        invoice: numbered.id,
        matchedBy: 'name_token',
      });
      expect(await send(a.liveKey, a.ftpUsername, 'RE-E-974-Hetzner_2016-01-19_R0005532486.pdf', await makePdf('Hetzner'))).toMatchObject({
        status: 'attached',
        invoice: hetzner.id,
        matchedBy: 'name_token',
      });
    });

    it('scan_0042.pdf attaches by its text without waiting; two labelled invoice numbers are refused, naming both', async () => {
      const a = await t.ftpAccount();
      const inv = await t.invoice(a.liveKey, 'RE-2026-4711');
      await t.invoice(a.liveKey, 'RE-2026-4712');
      await t.invoice(a.liveKey, 'RE-2026-4713');
      expect(await send(a.liveKey, a.ftpUsername, 'scan_0042.pdf', await textPdf(TEXT))).toMatchObject({
        status: 'attached',
        invoice: inv.id,
        matchedBy: 'pdf_text',
      });
      const two = await send(
        a.liveKey,
        a.ftpUsername,
        'random.pdf',
        await textPdf(['Rechnungsnummer: RE-2026-4712', 'Rechnungsnummer: RE-2026-4713', 'Gesamtbetrag: 100,00 EUR']),
      );
      expect(two).toMatchObject({ status: 'failed', invoice: null, reasonCode: 'pdf_text_names_several' });
      expect(two.reason).toContain('(RE-2026-4712 or RE-2026-4713)');
    });

    it.each([
      ['the hybrid first', true],
      ['the text-only file first', false],
    ])("%s: the hybrid is the document, and the other file's record says so", async (_order, hybridFirst) => {
      const a = await t.ftpAccount();
      const inv = await t.invoice(a.liveKey, 'RE-2026-4711');
      const files: [string, Buffer][] = [
        ['x1.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('RE-2026-4711') })],
        ['printed.pdf', await textPdf(TEXT)],
      ];
      for (const [name, bytes] of hybridFirst ? files : [...files].reverse()) await send(a.liveKey, a.ftpUsername, name, bytes);
      await expect
        .poll(async () => (await t.imports(a.liveKey)).find((r: any) => r.filename === 'printed.pdf').reasonCode, { timeout: 45_000 })
        .toBe(hybridFirst ? 'document_kept' : 'document_replaced');
      const printed = (await t.imports(a.liveKey)).find((r: any) => r.filename === 'printed.pdf');
      expect(printed.reason).toContain(
        hybridFirst ? 'already has x1.pdf, attached by its e-invoice' : "x1.pdf replaced it as invoice RE-2026-4711's document, found by its e-invoice",
      );
      expect((await t.documentsOf(inv.id)).filter((d) => !d.deleted_at).map((d) => d.filename)).toEqual(['x1.pdf']);
    });
  });
});
