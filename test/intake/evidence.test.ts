// Never the wrong invoice (docs/matching.md), end to end over POST /v2/imports on PostgreSQL with
// real PDFs: the real file names against an account with short numbers, conflicts that
// refuse, weaker evidence that never replaces stronger, the e-invoice layouts beyond the common
// ones, what is stored (a PDF from its first byte), Unicode and long names.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf, orderXXml, ublCreditNoteXml, utf16, zugferdPreReleaseXml } from '../helpers/einvoice.ts';
import { archiveImports, makeZip } from '../helpers/zip-archives.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;
/** signed and encrypted CMS made by OpenSSL around invoice.pdf (test/fixtures/mail/cms/make.sh) */
const CMS = path.join(import.meta.dirname, '../fixtures/mail/cms');

beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 500, intakeBackoffMaxMs: 1000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const accountWith = (...numbers: string[]) => t.accountWith(numbers);
const upload = (key: string, filename: string, bytes: Buffer) => t.importFile(key, filename, bytes);

async function documentOf(key: string, invoiceId: string) {
  const meta = await t.request('GET', `/v2/documents/${invoiceId}`, { key });
  const content = await t.request('GET', `/v2/documents/${invoiceId}/content`, { key });
  return { filename: meta.body.filename as string, bytes: content.raw };
}

describe('real file names against an account that has short numbers', () => {
  const SHORT = ['2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816'];

  it.each(['F-2024-1170.pdf', 'RE-2024-0815.pdf'])('%s attaches to none of them: it waits', async (filename) => {
    const a = await accountWith(...SHORT);
    const rec = await upload(a.key, filename, await makePdf(filename));
    expect(rec).toMatchObject({ status: 'waiting', invoice: null, matchedBy: null });
  });

  it.each(['IMG_0123.pdf', 'scan_0001.pdf', '2024-11-25.pdf', 'DSC01234.pdf'])(
    "%s attaches to none of them: a device's name on a PDF that names nothing is refused at once",
    async (filename) => {
      const a = await accountWith(...SHORT);
      const rec = await upload(a.key, filename, await makePdf(filename));
      expect(rec).toMatchObject({ status: 'failed', invoice: null, matchedBy: null, reasonCode: 'device_name_nothing_inside' });
      expect(rec.reason).toContain(
        `The file name ${filename.slice(0, -4)} is a scanner's or camera's name, not an invoice number, and nothing in the PDF names an invoice`,
      );
    },
  );

  it.each([
    ['INV_000123.pdf', 'INV-000123'],
    ['RE_2024_0816.pdf', 'RE/2024/0816'],
  ])('%s attaches to %s: the whole number, separators alike', async (filename, number) => {
    const a = await accountWith(...SHORT);
    expect(await upload(a.key, filename, await makePdf(filename))).toMatchObject({ status: 'attached', invoice: a.invoices[number], matchedBy: 'name_token' });
  });

  it('the exact <invoice_number>.pdf still attaches, short numbers too', async () => {
    const a = await accountWith(...SHORT);
    expect(await upload(a.key, '2024.pdf', await makePdf('2024'))).toMatchObject({
      status: 'attached',
      invoice: a.invoices['2024'],
      matchedBy: 'invoice_number',
    });
    expect(await upload(a.key, '0123 (1).pdf', await makePdf('copy'))).toMatchObject({
      status: 'attached',
      invoice: a.invoices['0123'],
      matchedBy: 'invoice_number',
    });
  });
});

describe('ZIP entries are decided like any file', () => {
  it('a counter waits, separators match, a conflicting e-invoice is refused, a .pdf.p7m is unwrapped', async () => {
    const a = await accountWith('0123', 'INV-000123', '000123', 'RE-2024-0815', '471102', 'RE-2024-0848');
    const res = await t.request('POST', '/v2/imports', {
      key: a.key,
      body: {
        Filename: 'export.zip',
        Content: (
          await makeZip([
            { name: 'IMG_0123.pdf', bytes: await makePdf('camera') },
            { name: 'INV_000123.pdf', bytes: await makePdf('separators') },
            { name: 'RE-2024-0815.pdf', bytes: await einvoicePdf({ 'factur-x.xml': ciiXml('471102') }) },
            { name: 'RE-2024-0848.pdf.p7m', bytes: fs.readFileSync(path.join(CMS, 'signed.der')) },
          ])
        ).toString('base64'),
      },
    });
    expect(res.status).toBe(202);
    const files = Object.fromEntries((await archiveImports(t.request, a.key, res.body.id, 4, (r) => r.status !== 'received')).map((r) => [r.filename, r]));
    expect(files['IMG_0123.pdf']).toMatchObject({ status: 'failed', invoice: null, reasonCode: 'device_name_nothing_inside' });
    expect(files['INV_000123.pdf']).toMatchObject({ status: 'attached', invoice: a.invoices['INV-000123'], matchedBy: 'name_token' });
    expect(files['RE-2024-0815.pdf']).toMatchObject({
      status: 'failed',
      reason: "The file's name says RE-2024-0815, but its e-invoice says 471102; rename the file or assign it",
    });
    expect(files['RE-2024-0848.pdf.p7m']).toMatchObject({ status: 'attached', invoice: a.invoices['RE-2024-0848'] });
  });
});

describe('conflicting evidence is refused, naming both', () => {
  it("an e-invoice that names another existing invoice than the file's name", async () => {
    const a = await accountWith('RE-2024-0815', '471102');
    const rec = await upload(a.key, 'RE-2024-0815.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('471102') }));
    expect(rec).toMatchObject({
      status: 'failed',
      invoice: null,
      reason: "The file's name says RE-2024-0815, but its e-invoice says 471102; rename the file or assign it",
    });
    expect((await t.request('GET', `/v2/documents/${a.invoices['RE-2024-0815']}`, { key: a.key })).status).toBe(404);
  });
});

describe('weaker evidence never replaces a document that stronger evidence attached', () => {
  it('a number in a name does not replace the exact name; an exact re-upload does', async () => {
    const a = await accountWith('2026-0500');
    const first = await makePdf('first');
    const attached = await upload(a.key, '2026-0500.pdf', first);
    expect(attached).toMatchObject({ status: 'attached', matchedBy: 'invoice_number' });
    // the history line (what the dashboard shows) names the evidence used
    const history = await t.svc.container.intakeHistory.list(
      { accountId: (await t.request('GET', '/v2/account', { key: a.key })).body.id, mode: 'live' },
      attached.id,
    );
    expect(history.at(-1)).toMatchObject({ status: 'attached', reason: 'Matched by its name (2026-0500)' });
    const weaker = await upload(a.key, 'Factuur 2026-0500.pdf', await makePdf('weaker'));
    expect(weaker).toMatchObject({ status: 'failed', invoice: a.invoices['2026-0500'] });
    expect(weaker.reason).toBe(
      'Invoice 2026-0500 already has 2026-0500.pdf, attached by its name; this file was found by a number in its name, which does not replace it: send it as 2026-0500.pdf or assign it to replace the document',
    );
    expect(sha((await documentOf(a.key, a.invoices['2026-0500'])).bytes)).toBe(sha(first));
    const correction = await makePdf('correction');
    expect(await upload(a.key, '2026-0500.pdf', correction)).toMatchObject({ status: 'attached', matchedBy: 'invoice_number' });
    expect(sha((await documentOf(a.key, a.invoices['2026-0500'])).bytes)).toBe(sha(correction));
  });

  it('whichever arrives first, the invoice ends with the file found by its name', async () => {
    const a = await accountWith('2026-0501');
    expect(await upload(a.key, 'Factuur 2026-0501.pdf', await makePdf('token first'))).toMatchObject({ status: 'attached', matchedBy: 'name_token' });
    const byName = await makePdf('name second');
    expect(await upload(a.key, '2026-0501.pdf', byName)).toMatchObject({ status: 'attached', matchedBy: 'invoice_number' });
    expect(sha((await documentOf(a.key, a.invoices['2026-0501'])).bytes)).toBe(sha(byName));
  });

  it('an API upload and an assignment by hand replace whatever is there', async () => {
    const a = await accountWith('2026-0502');
    await upload(a.key, '2026-0502.pdf', await makePdf('by name'));
    const api = await makePdf('by the API');
    const res = await t.request('POST', '/v2/documents', {
      key: a.key,
      body: { Invoice: a.invoices['2026-0502'], Filename: 'api.pdf', MediaType: 'application/pdf', Content: api.toString('base64') },
    });
    expect([200, 201]).toContain(res.status);
    expect(sha((await documentOf(a.key, a.invoices['2026-0502'])).bytes)).toBe(sha(api));
  });
});

describe('e-invoices beyond the common layouts', () => {
  it.each([
    ['a UBL credit note', () => einvoicePdf({ 'xrechnung.xml': ublCreditNoteXml('GS-2026-7') })],
    ["ZUGFeRD 1.0's pre-release (rsm:Invoice)", () => einvoicePdf({ 'ZUGFeRD-invoice.xml': zugferdPreReleaseXml('GS-2026-7') })],
    ['UTF-16 XML', () => einvoicePdf({ 'factur-x.xml': utf16(ciiXml('GS-2026-7')) })],
    ["XML listed only in the catalog's /AF", () => einvoicePdf({ 'factur-x.xml': ciiXml('GS-2026-7') }, { afOnly: true })],
  ])('%s under a meaningless name attaches by its number', async (_what, make) => {
    const a = await accountWith('GS-2026-7', 'GS-2026-8');
    expect(await upload(a.key, 'document.pdf', await make())).toMatchObject({ status: 'attached', invoice: a.invoices['GS-2026-7'], matchedBy: 'einvoice' });
  });

  it('an order (Order-X) is no evidence of an invoice', async () => {
    const a = await accountWith('ORD-2026-1');
    expect(await upload(a.key, 'document.pdf', await einvoicePdf({ 'order-x.xml': orderXXml('ORD-2026-1') }))).toMatchObject({
      status: 'waiting',
      invoice: null,
    });
  });

  it('an invoice XML whose number cannot be read says so', async () => {
    const a = await accountWith('ORD-2026-2');
    const rec = await upload(a.key, 'document.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('') }));
    expect(rec.status).toBe('waiting');
    expect(rec.reason).toContain('an e-invoice XML was found but its number could not be read');
  });
});

describe('what is stored is a PDF from its first byte', () => {
  it('junk before %PDF- is dropped (intake and the API alike), and the record says so', async () => {
    const a = await accountWith('2026-0600', '2026-0601');
    const pdf = await makePdf('junk before');
    const rec = await upload(a.key, '2026-0600.pdf', Buffer.concat([Buffer.from('\r\n\uFEFFjunk'), pdf]));
    expect(rec).toMatchObject({ status: 'attached', reason: "The 9 bytes before the PDF's %PDF- header were dropped" });
    expect(sha((await documentOf(a.key, a.invoices['2026-0600'])).bytes)).toBe(sha(pdf));
    const res = await t.request('POST', '/v2/documents', {
      key: a.key,
      body: {
        Invoice: a.invoices['2026-0601'],
        Filename: 'x.pdf',
        MediaType: 'application/pdf',
        Content: Buffer.concat([Buffer.from('  '), pdf]).toString('base64'),
      },
    });
    expect([200, 201]).toContain(res.status);
    expect(sha((await documentOf(a.key, a.invoices['2026-0601'])).bytes)).toBe(sha(pdf));
  });

  it('a CAdES signature container (.pdf.p7m) is unwrapped: the PDF inside is stored, the record says the signature was verified', async () => {
    const a = await accountWith('RE-2024-0848');
    const pdf = fs.readFileSync(path.join(CMS, 'invoice.pdf'));
    const rec = await upload(a.key, 'RE-2024-0848.pdf.p7m', fs.readFileSync(path.join(CMS, 'signed.der')));
    expect(rec).toMatchObject({
      status: 'attached',
      matchedBy: 'invoice_number',
      reason: 'The PDF was taken out of a signature container (CMS/PKCS#7, .p7m); its signature was verified',
    });
    const doc = await documentOf(a.key, a.invoices['RE-2024-0848']);
    expect(doc.filename).toBe('RE-2024-0848.pdf');
    expect(sha(doc.bytes)).toBe(sha(pdf));
  });

  it('an encrypted CMS container is refused with what it is', async () => {
    const a = await accountWith('RE-2024-0849');
    const rec = await upload(a.key, 'RE-2024-0849.pdf.p7m', fs.readFileSync(path.join(CMS, 'enveloped.der')));
    expect(rec).toMatchObject({ status: 'failed', invoice: null });
    expect(rec.reason).toMatch(/^The file is a signature container \(CMS\/PKCS#7, \.p7m\) that cannot be opened: it is encrypted/);
  });

  it("Outlook's TNEF (winmail.dat) is refused by name, never stored", async () => {
    const a = await accountWith('2026-0602');
    const tnef = Buffer.concat([Buffer.from([0x78, 0x9f, 0x3e, 0x22, 0x01, 0x00]), await makePdf('inside tnef')]);
    expect(await upload(a.key, '2026-0602.pdf', tnef)).toMatchObject({
      status: 'failed',
      reason: 'The file is an Outlook TNEF container (winmail.dat), not a PDF; send the PDF itself',
    });
  });
});

describe('Unicode and long names', () => {
  it('an invoice number sent in NFD is stored in NFC, and file names in either form find it', async () => {
    const a = await accountWith('Ju\u0308rgen-0042');
    const got = await t.request('GET', `/v2/invoices/${a.invoices['Ju\u0308rgen-0042']}`, { key: a.key });
    expect(got.body.invoiceNumber).toBe('J\u00fcrgen-0042');
    expect(await upload(a.key, 'J\u00fcrgen-0042.pdf', await makePdf('nfc'))).toMatchObject({ status: 'attached', matchedBy: 'invoice_number' });
    const b = await accountWith('J\u00fcrgen-0043');
    expect(await upload(b.key, 'Rechnung Ju\u0308rgen-0043.pdf', await makePdf('nfd'))).toMatchObject({ status: 'attached', matchedBy: 'name_token' });
  });

  it('a name over 100 characters is matched by the number inside it', async () => {
    const a = await accountWith('RE-2026-0700');
    const name = `Rechnung zu Ihrer Bestellung vom 25. November bei Mustermann und Soehne GmbH, Hauptstrasse 1, Nr RE-2026-0700.pdf`;
    expect(name.length).toBeGreaterThan(100);
    expect(await upload(a.key, name, await makePdf('long'))).toMatchObject({ status: 'attached', matchedBy: 'name_token' });
  });
});

it('the helpers build what they claim: the /AF-only PDF has no EmbeddedFiles tree', async () => {
  const doc = await PDFDocument.load(await einvoicePdf({ 'factur-x.xml': ciiXml('x') }, { afOnly: true }));
  expect(doc.catalog.keys().map(String)).toContain('/AF');
  expect(doc.catalog.keys().map(String)).not.toContain('/Names');
});
