import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createCustomer, createInvoice } from '../helpers/fixtures.ts';

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('invoices', () => {
  it('creates an invoice from form fields; the balance defaults to the total and the status to open', async ({ t, key }) => {
    const c = await createCustomer(t, key, { name: 'Jansen BV' });
    const res = await t.request('POST', '/v2/invoices', {
      key,
      form: { Customer: c.id, invoiceNumber: '2026-0001', InvoiceDate: '15-01-2026', InvoiceDuedate: '14-02-2026', InvoiceTotal: '480.00' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body).toEqual({
      resource: 'invoice',
      id: expect.stringMatching(/^inv_/),
      status: 'open',
      invoiceNumber: '2026-0001',
      invoiceDate: '15-01-2026',
      invoiceDuedate: '14-02-2026',
      invoiceTotal: '480.00',
      invoiceBalance: '480.00',
      document: null,
      customer: { id: c.id, number: c.customerCode, name: 'Jansen BV' },
      _links: { self: { href: expect.stringMatching(new RegExp(`/v2/invoices/${res.body.id}$`)), type: 'application/hal+json' } },
    });
    expect(res.body.id.length).toBeLessThanOrEqual(36);
    const got = await t.request('GET', `/v2/invoices/${res.body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('takes the balance and the status the client sends; canceled is read as cancelled', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const res = await t.request('POST', '/v2/invoices', {
      key,
      body: {
        customer: c.id,
        invoiceNumber: 'X-2',
        invoiceDate: '01-01-2026',
        invoiceDuedate: '01-02-2026',
        invoiceTotal: '100.00',
        invoiceBalance: '25.50',
        invoiceStatus: 'Concept',
      },
    });
    expect(res.body).toMatchObject({ invoiceTotal: '100.00', invoiceBalance: '25.50', status: 'concept' });
    const canceled = await createInvoice(t, key, { invoiceStatus: 'canceled' });
    expect(canceled.status).toBe('cancelled');
  });

  it('PATCH invoiceStatus=paid with invoiceBalance=0.00 answers status paid and balance 0.00', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    const res = await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, form: { InvoiceStatus: 'paid', InvoiceBalance: '0.00' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: inv.id, status: 'paid', invoiceBalance: '0.00', invoiceTotal: '480.00' });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body).toMatchObject({ status: 'paid', invoiceBalance: '0.00' });
  });

  it('PATCH changes dates and amounts and leaves the rest', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    const res = await t.request('PATCH', `/v2/invoices/${inv.id}`, {
      key,
      body: { invoiceDate: '29-02-2028', invoiceDuedate: '31-03-2028', invoiceTotal: '500', invoiceBalance: 499.99 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      invoiceDate: '29-02-2028',
      invoiceDuedate: '31-03-2028',
      invoiceTotal: '500.00',
      invoiceBalance: '499.99',
      status: 'open',
      invoiceNumber: inv.invoiceNumber,
    });
    const balanceTooHigh = await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, body: { invoiceTotal: '100.00' } });
    expect(balanceTooHigh.status).toBe(422);
    expect(balanceTooHigh.body.field).toBe('invoicebalance');
  });

  it('deletes an invoice (204, no body); afterwards it is gone (410) and the number is free again', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    const del = await t.request('DELETE', `/v2/invoices/${inv.id}`, { key });
    expect(del.status).toBe(204);
    expect(del.raw.length).toBe(0);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).status).toBe(410);
    const again = await createInvoice(t, key, { customer: inv.customer.id, invoiceNumber: inv.invoiceNumber });
    expect(again.id).not.toBe(inv.id);
  });

  it('lists newest first and filters by InvoiceStatus (any case of the name and value)', async ({ t }) => {
    const other = await t.createAccount();
    const c = await createCustomer(t, other.liveKey);
    const a = await createInvoice(t, other.liveKey, { customer: c.id });
    const b = await createInvoice(t, other.liveKey, { customer: c.id, invoiceStatus: 'paid', invoiceBalance: '0.00' });
    const d = await createInvoice(t, other.liveKey, { customer: c.id });
    const all = await t.request('GET', '/v2/invoices', { key: other.liveKey });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.invoices.map((i: any) => i.id)).toEqual([d.id, b.id, a.id]);
    expect(all.body.invoices[0].resource).toBe('invoice');
    for (const q of ['InvoiceStatus=open', 'invoicestatus=open', 'INVOICESTATUS=Open']) {
      const open = await t.request('GET', `/v2/invoices?${q}`, { key: other.liveKey });
      expect(
        open.body.invoices.map((i: any) => i.id),
        q,
      ).toEqual([d.id, a.id]);
    }
    const paid = await t.request('GET', '/v2/invoices?InvoiceStatus=paid', { key: other.liveKey });
    expect(paid.body).toMatchObject({ count: 1, invoices: [{ id: b.id, status: 'paid' }] });
    const none = await t.request('GET', '/v2/invoices?InvoiceStatus=cancelled', { key: other.liveKey });
    expect(none.body).toEqual({ invoices: [], count: 0, links: { previous: null, next: null } });
  });

  it('shows the customer as it is now after the customer changes', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    await t.request('PATCH', `/v2/customers/${inv.customer.id}`, { key, body: { name: 'Renamed' } });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.customer.name).toBe('Renamed');
  });

  it('refuses an invoice for a customer of another account or mode with 404', async ({ t, acct, key }) => {
    const other = await t.createAccount();
    const foreign = await createCustomer(t, other.liveKey);
    const testCustomer = await createCustomer(t, acct.testKey);
    for (const customer of [foreign.id, testCustomer.id]) {
      const res = await t.request('POST', '/v2/invoices', {
        key,
        body: { customer, invoiceNumber: 'Q-1', invoiceDate: '01-01-2026', invoiceDuedate: '01-02-2026', invoiceTotal: '1.00' },
      });
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe(`No customer exists with id ${customer}.`);
    }
  });

  it('concurrent creates of one invoice number make exactly one invoice', async ({ t, key }) => {
    const c = await createCustomer(t, key);
    const body = { customer: c.id, invoiceNumber: 'RACE-1', invoiceDate: '01-01-2026', invoiceDuedate: '01-02-2026', invoiceTotal: '1.00' };
    const results = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', '/v2/invoices', { key, body })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('a customer deleted while an invoice is created for it never ends up deleted with a live invoice', async ({ t, key }) => {
    for (let i = 0; i < 8; i++) {
      const c = await createCustomer(t, key);
      const [del, inv] = await Promise.all([
        t.request('DELETE', `/v2/customers/${c.id}`, { key }),
        t.request('POST', '/v2/invoices', {
          key,
          body: { customer: c.id, invoiceNumber: `DEL-RACE-${i}`, invoiceDate: '01-01-2026', invoiceDuedate: '01-02-2026', invoiceTotal: '1.00' },
        }),
      ]);
      // either the invoice came first (delete refused) or the delete did (invoice refused with 410)
      expect([
        [400, 201],
        [204, 410],
      ]).toContainEqual([del.status, inv.status]);
      const live = await t.db.query<{ n: number }>(
        'select count(*)::int as n from invoices i join customers c on c.id = i.customer_id where c.id = $1 and c.deleted_at is not null and i.deleted_at is null',
        [c.id],
      );
      expect(live[0].n).toBe(0);
    }
  });
});
