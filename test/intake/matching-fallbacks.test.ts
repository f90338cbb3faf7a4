// Matching beyond the spec's two file-name rules, end to end over POST /v2/imports on PostgreSQL:
// the e-invoice inside the PDF, a number inside the name, ambiguity, the password check, and
// matchedBy on every attached record. Real PDFs made here (pdf-lib's attach; qpdf encrypts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf, encryptedPdf, ublXml, zugferd1Xml } from '../helpers/einvoice.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

let t: IntakeApp;

// a short backoff: a file that waits is tried again within a second or two
beforeAll(async () => {
  t = await startIntakeApp({ config: { intakeBackoffMs: 500, intakeBackoffMaxMs: 1000, intakeMatchWindowMs: 3_600_000 } });
});
afterAll(() => t?.close());

/** A fresh account (invoice numbers like 2026-0117 are unique per account) with these invoices. */
async function accountWith(...numbers: string[]) {
  const acct = await t.account();
  const invoices: Record<string, string> = {};
  for (const n of numbers) invoices[n] = await invoice(acct.liveKey, n);
  return { key: acct.liveKey, invoices };
}

async function invoice(key: string, invoiceNumber: string): Promise<string> {
  const c = await t.request('POST', '/v2/customers', { key, body: { customerCode: `C-${invoiceNumber}`, name: 'Fallback BV' } });
  const res = await t.request('POST', '/v2/invoices', {
    key,
    body: { customer: c.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function upload(key: string, filename: string, bytes: Buffer) {
  const res = await t.request('POST', '/v2/imports', { key, body: { Filename: filename, Content: bytes.toString('base64') } });
  expect(res.status).toBe(202);
  expect(res.body.matchedBy).toBeNull();
  return t.waitFor(key, res.body.id, (r) => r.status !== 'received');
}

describe('the e-invoice inside the PDF', () => {
  it.each([
    ['Factur-X (factur-x.xml)', () => einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') })],
    ['ZUGFeRD 1.0 (zugferd-invoice.xml, in a /Kids name tree)', () => einvoicePdf({ 'zugferd-invoice.xml': zugferd1Xml('2026-0117') }, { kids: true })],
    ['UBL (xrechnung.xml)', () => einvoicePdf({ 'xrechnung.xml': ublXml('2026-0117') })],
  ])('%s named scan0001.pdf attaches to the invoice its XML names', async (_name, make) => {
    const a = await accountWith('2026-0117', '2026-0118');
    const rec = await upload(a.key, 'scan0001.pdf', await make());
    expect(rec).toMatchObject({ status: 'attached', invoice: a.invoices['2026-0117'], matchedBy: 'einvoice', reason: null });
  });

  it('against a number in the name that names another invoice: refused, both named (conflict is no race)', async () => {
    const a = await accountWith('2026-0117', '2026-0118');
    const rec = await upload(a.key, 'Factuur 2026-0118.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }));
    expect(rec).toMatchObject({
      status: 'failed',
      invoice: null,
      matchedBy: null,
      reason: "The file's e-invoice says 2026-0117, but its name says 2026-0118; rename the file or assign it",
    });
  });

  it('naming an unknown invoice: the file waits, and attaches once that invoice exists', async () => {
    const a = await accountWith('2026-0117');
    const rec = await upload(a.key, 'scan0002.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0999') }));
    expect(rec.status).toBe('waiting');
    // a scanner's name is not waited for: the e-invoice's number is
    expect(rec.reason).toMatch(
      /^Waiting until .+ for an invoice that the PDF names: its file name scan0002 is a scanner's or camera's name, not an invoice number; its e-invoice says 2026-0999, which is no invoice of this account yet$/,
    );
    const id = await invoice(a.key, '2026-0999');
    expect(await t.waitFor(a.key, rec.id)).toMatchObject({ status: 'attached', invoice: id, matchedBy: 'einvoice' });
  });
});

describe('a number inside the file name', () => {
  it('Factuur 2026-0117.pdf attaches to invoice 2026-0117', async () => {
    const a = await accountWith('2026-0117');
    expect(await upload(a.key, 'Factuur 2026-0117.pdf', await makePdf('token'))).toMatchObject({
      status: 'attached',
      invoice: a.invoices['2026-0117'],
      matchedBy: 'name_token',
    });
  });

  it('INV-2026-0117_signed.pdf attaches to INV-2026-0117, not to 2026-0117 inside it', async () => {
    const a = await accountWith('2026-0117', 'INV-2026-0117');
    expect(await upload(a.key, 'INV-2026-0117_signed.pdf', await makePdf('longer'))).toMatchObject({
      status: 'attached',
      invoice: a.invoices['INV-2026-0117'],
      matchedBy: 'name_token',
    });
  });

  it('a name with two invoice numbers fails and says both', async () => {
    const a = await accountWith('2026-0117', '2026-0118');
    const rec = await upload(a.key, 'Factuur 2026-0117 2026-0118.pdf', await makePdf('ambiguous'));
    expect(rec).toMatchObject({
      status: 'failed',
      reason: 'The file could be invoice 2026-0117 or 2026-0118; rename it or assign it',
      invoice: null,
      matchedBy: null,
    });
  });

  it('numbers shorter than 4 characters never match by token; part of a longer run never matches', async () => {
    const a = await accountWith('117', '2026-0117');
    expect((await upload(a.key, 'Factuur 117.pdf', await makePdf('short'))).status).toBe('waiting');
    expect((await upload(a.key, 'Factuur 2026-01170.pdf', await makePdf('longer run'))).status).toBe('waiting');
  });
});

describe('matchedBy', () => {
  it("says invoice_id and invoice_number for the spec's rules, manual for a file assigned by hand", async () => {
    const a = await accountWith('2026-0117', '2026-0118');
    expect(await upload(a.key, `${a.invoices['2026-0117']}.pdf`, await makePdf('id'))).toMatchObject({ status: 'attached', matchedBy: 'invoice_id' });
    expect(await upload(a.key, '2026-0118.pdf', await makePdf('number'))).toMatchObject({ status: 'attached', matchedBy: 'invoice_number' });
    // a scanner's name on a PDF that names nothing: refused at once, and still assignable by hand
    const stray = await upload(a.key, 'scan0003.pdf', await makePdf('by hand'));
    expect(stray).toMatchObject({ status: 'failed', reasonCode: 'device_name_nothing_inside' });
    const assigned = await t.request('POST', `/v2/imports/${stray.id}/attach`, { key: a.key, body: { invoice: '2026-0117' } });
    expect(assigned.body).toMatchObject({ status: 'attached', invoice: a.invoices['2026-0117'], matchedBy: 'manual' });
    expect((await t.request('GET', `/v2/imports/${stray.id}`, { key: a.key })).body.matchedBy).toBe('manual');
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/v2/openapi.json')).body;
    const schema = JSON.stringify(doc).match(/"matchedBy":\{[^}]*\}/)?.[0] ?? '';
    for (const v of ['invoice_id', 'invoice_number', 'einvoice', 'subject', 'name_token', 'manual']) expect(schema).toContain(`"${v}"`);
  });
});

describe('PDFs protected with a password', () => {
  it('a PDF that needs a password to open fails and says so; one with only an owner password attaches', async () => {
    const a = await accountWith('2026-0117', '2026-0118');
    const locked = await upload(a.key, '2026-0117.pdf', encryptedPdf(await makePdf('locked'), 'user-secret'));
    expect(locked).toMatchObject({
      status: 'failed',
      reason: 'The PDF is protected with a password, so it cannot be checked or shown; send it without a password',
    });
    const permissions = await upload(a.key, '2026-0118.pdf', encryptedPdf(await makePdf('permissions only'), ''));
    expect(permissions).toMatchObject({ status: 'attached', invoice: a.invoices['2026-0118'], matchedBy: 'invoice_number' });
  });

  it('fails at once when no invoice matches either, instead of waiting', async () => {
    const a = await accountWith();
    expect(await upload(a.key, 'scan0004.pdf', encryptedPdf(await makePdf('locked'), 'user-secret'))).toMatchObject({
      status: 'failed',
      reason: 'The PDF is protected with a password, so it cannot be checked or shown; send it without a password',
    });
  });
});
