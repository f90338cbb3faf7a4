// Small real PDFs and helpers to create the records tests need.
import { randomBytes } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { TestApp } from './test-app.ts';

/** A real one-page PDF; `padTo` pads it (inside a stream, still valid) to about that many bytes. */
export async function makePdf(text = 'Invoice', padTo = 0): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText(text, { x: 50, y: 780, size: 14, font });
  if (padTo > 0) {
    // incompressible filler so the size is what the test asked for
    const filler = randomBytes(padTo); // random bytes: deflate cannot shrink them
    doc.attach(filler, 'filler.bin', { mimeType: 'application/octet-stream' });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

export async function createCustomer(t: TestApp, key: string, fields: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: `C-${unique()}`, name: 'Test Customer', ...fields } });
  if (res.status !== 201) throw new Error(`customer creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function createInvoice(t: TestApp, key: string, fields: Record<string, unknown> = {}) {
  const customer = fields.customer ?? (await createCustomer(t, key)).id;
  const res = await t.request('POST', '/v2/invoices', {
    key,
    body: { customer, invoiceNumber: `F-${unique()}`, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00', ...fields },
  });
  if (res.status !== 201) throw new Error(`invoice creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
