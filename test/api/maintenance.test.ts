// Test data is virtual: it is purged after the configured retention; live data never is.
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createCustomer, createInvoice, makePdf } from '../helpers/fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { makeZip } from '../helpers/zip-archives.ts';

it.override('appOptions', { config: { testDataRetentionDays: 7 } });

async function fullInvoice(t: TestApp, key: string) {
  const inv = await createInvoice(t, key);
  const doc = await t.request('POST', `/v2/documents/${inv.id}`, {
    key,
    body: { filename: 'p.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') },
  });
  const pay = await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-02-2026', amount: '1.00' } });
  return { inv, doc: doc.body, pay: pay.body };
}

async function backdate(t: TestApp, days: number, ids: { customer?: string; invoice?: string; document?: string; payment?: string }) {
  const set = `created_at = now() - make_interval(days => ${days})`;
  if (ids.customer) await t.db.query(`update customers set ${set} where id = $1`, [ids.customer]);
  if (ids.invoice) await t.db.query(`update invoices set ${set} where id = $1`, [ids.invoice]);
  if (ids.document) await t.db.query(`update documents set ${set} where id = $1`, [ids.document]);
  if (ids.payment) await t.db.query(`update payments set ${set} where id = $1`, [ids.payment]);
}

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('test data purge', () => {
  it('removes test data older than the retention, keeps younger test data and all live data', async ({ t, acct }) => {
    const oldTest = await fullInvoice(t, acct.testKey);
    const youngTest = await fullInvoice(t, acct.testKey);
    const oldLive = await fullInvoice(t, acct.liveKey);
    const all = (x: typeof oldTest) => ({ customer: x.inv.customer.id, invoice: x.inv.id, document: x.doc.id, payment: x.pay.id });
    await backdate(t, 8, all(oldTest));
    await backdate(t, 6, all(youngTest));
    await backdate(t, 400, all(oldLive));

    const counts = await t.c.maintenance.purgeTestData(); // the configured 7 days
    expect(counts).toMatchObject({ invoices: 1, customers: 1, payments: 1, documents: 1 });

    const tk = acct.testKey;
    expect((await t.request('GET', `/v2/invoices/${oldTest.inv.id}`, { key: tk })).status).toBe(404);
    expect((await t.request('GET', `/v2/customers/${oldTest.inv.customer.id}`, { key: tk })).status).toBe(404);
    expect((await t.request('GET', `/v2/payments/${oldTest.pay.id}`, { key: tk })).status).toBe(404);
    expect((await t.request('GET', `/v2/documents/${oldTest.doc.id}`, { key: tk })).status).toBe(404);
    expect((await t.request('GET', '/v2/invoices', { key: tk })).body.invoices.map((i: any) => i.id)).toEqual([youngTest.inv.id]);

    expect((await t.request('GET', `/v2/invoices/${youngTest.inv.id}`, { key: tk })).body.document).toBe('p.pdf');
    expect((await t.request('GET', `/v2/invoices/${oldLive.inv.id}`, { key: acct.liveKey })).body).toMatchObject({
      document: 'p.pdf',
      invoiceBalance: '479.00',
    });
    expect((await t.request('GET', `/v2/payments/${oldLive.pay.id}`, { key: acct.liveKey })).status).toBe(200);
    expect((await t.request('GET', `/v2/documents/${oldLive.doc.id}/content`, { key: acct.liveKey })).status).toBe(200);
  });

  it('keeps an old test customer that still has a younger invoice, and tombstones go too', async ({ t, acct }) => {
    const c = await createCustomer(t, acct.testKey);
    const young = await createInvoice(t, acct.testKey, { customer: c.id });
    const gone = await createCustomer(t, acct.testKey);
    await t.request('DELETE', `/v2/customers/${gone.id}`, { key: acct.testKey });
    await backdate(t, 30, { customer: c.id });
    await backdate(t, 30, { customer: gone.id });
    await t.c.maintenance.purgeTestData();
    expect((await t.request('GET', `/v2/customers/${c.id}`, { key: acct.testKey })).status).toBe(200);
    expect((await t.request('GET', `/v2/invoices/${young.id}`, { key: acct.testKey })).status).toBe(200);
    // the deleted customer's tombstone is purged: no longer 410 but 404
    expect((await t.request('GET', `/v2/customers/${gone.id}`, { key: acct.testKey })).status).toBe(404);
  });

  it('an explicit retention overrides the configured one', async ({ t, acct }) => {
    const x = await fullInvoice(t, acct.testKey);
    await backdate(t, 3, { customer: x.inv.customer.id, invoice: x.inv.id, document: x.doc.id, payment: x.pay.id });
    expect((await t.c.maintenance.purgeTestData()).invoices).toBe(0);
    // 2 days: this invoice (3 days) and the 6-day-old one of the first test
    expect((await t.c.maintenance.purgeTestData(2)).invoices).toBe(2);
    expect((await t.request('GET', `/v2/invoices/${x.inv.id}`, { key: acct.testKey })).status).toBe(404);
  });

  it("an old test-mode ZIP archive and its files are purged, except a file that is an invoice's document", async ({ t, acct }) => {
    const scope = { accountId: acct.id, mode: 'test' as const };
    const inv = await createInvoice(t, acct.testKey);
    const zip = await makeZip([
      { name: 'kept.pdf', bytes: await makePdf('kept') },
      { name: 'gone.pdf', bytes: await makePdf('gone') },
    ]);
    const archive = await t.c.intake.receive({ scope, channel: 'http', sender: 'purge', filename: 'old.zip', bytes: zip });
    const [kept, gone] = await t.c.intake.archiveFiles(scope, archive.id);
    await t.c.importActions.attach(scope, kept.id, inv.id); // its bytes are the document's now
    await t.db.query(`update intake_staging set received_at = now() - make_interval(days => 8) where id = any($1)`, [[archive.id, kept.id, gone.id]]);

    await t.c.maintenance.purgeTestData();
    const left = await t.db.query<{ id: string; archive_id: string | null }>('select id, archive_id from intake_staging where id = any($1)', [
      [archive.id, kept.id, gone.id],
    ]);
    expect(left).toEqual([{ id: kept.id, archive_id: null }]);
    expect((await t.request('GET', `/v2/documents/${inv.id}/content`, { key: acct.testKey })).status).toBe(200);
  });
});
