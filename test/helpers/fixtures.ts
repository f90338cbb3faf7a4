// Small real PDFs and helpers to create the records tests need.
import type { TestApp } from './test-app.ts';

export { makePdf, pdfWithBrokenPageTree, textPdf } from '../../testkit/pdf.ts';

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
