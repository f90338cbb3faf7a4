// The matching fallbacks turned off (INTAKE_MATCH_EINVOICE, INTAKE_MATCH_SUBJECT,
// INTAKE_MATCH_NAME_TOKEN = false): only the spec's two file-name rules match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf } from '../helpers/einvoice.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';

describe('each fallback can be turned off', () => {
  let off: IntakeApp;
  beforeAll(async () => {
    off = await startIntakeApp({ config: { intakeMatchEinvoice: false, intakeMatchSubject: false, intakeMatchNameToken: false } });
  });
  afterAll(() => off?.close());

  it("with the e-invoice and name token fallbacks off, only the spec's rules match", async () => {
    const acct = await off.account();
    const c = await off.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'C-OFF', name: 'Off BV' } });
    const inv = await off.request('POST', '/v2/invoices', {
      key: acct.liveKey,
      body: { customer: c.body.id, invoiceNumber: '2026-0117', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '1.00' },
    });
    const send = async (filename: string, bytes: Buffer) => {
      const res = await off.request('POST', '/v2/imports', { key: acct.liveKey, body: { Filename: filename, Content: bytes.toString('base64') } });
      return off.waitFor(acct.liveKey, res.body.id, (r) => r.status !== 'received');
    };
    expect((await send('scan0001.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }))).status).toBe('waiting');
    expect((await send('Factuur 2026-0117.pdf', await makePdf('token off'))).status).toBe('waiting');
    expect(await send('2026-0117.pdf', await makePdf('by number'))).toMatchObject({ status: 'attached', invoice: inv.body.id, matchedBy: 'invoice_number' });
  });
});
