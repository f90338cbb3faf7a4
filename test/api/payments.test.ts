import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/api-test.ts';
import { createCustomer, createInvoice } from '../helpers/fixtures.ts';

const it = apiTest.extend(
  'pay',
  ({ t, key }) =>
    (invoice: string, amount: unknown, extra: Record<string, unknown> = {}, k = key) =>
      t.request('POST', '/v2/payments', { key: k, body: { invoice, date: '10-02-2026', amount, ...extra } }),
);

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('payments', () => {
  it('100.00 on 480.00 leaves 380.00; paying the rest makes the invoice paid with balance 0.00', async ({ t, key, pay }) => {
    const inv = await createInvoice(t, key, { invoiceTotal: '480.00' });
    const first = await t.request('POST', '/v2/payments', { key, form: { Invoice: inv.id, Date: '10-02-2026', Amount: '100.00' } });
    expect(first.status).toBe(201);
    expect(first.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(first.body).toEqual({
      resource: 'payment',
      id: expect.stringMatching(/^pay_/),
      invoice: inv.id,
      date: '10-02-2026',
      amount: '100.00',
      method: 'banktransfer',
      invoiceTotal: '480.00',
      invoiceBalance: '380.00',
      _links: { self: { href: expect.stringMatching(new RegExp(`/v2/payments/${first.body.id}$`)), type: 'application/hal+json' } },
    });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body).toMatchObject({ status: 'open', invoiceBalance: '380.00' });

    const rest = await pay(inv.id, '380.00', { method: 'iDEAL' });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ amount: '380.00', method: 'ideal', invoiceBalance: '0.00' });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body).toMatchObject({ status: 'paid', invoiceBalance: '0.00', invoiceTotal: '480.00' });
  });

  it('a payment on a paid or cancelled invoice is refused with 422 and a field', async ({ t, key, pay }) => {
    const paid = await createInvoice(t, key, { invoiceStatus: 'paid', invoiceBalance: '0.00' });
    const cancelled = await createInvoice(t, key, { invoiceStatus: 'cancelled' });
    for (const inv of [paid, cancelled]) {
      const res = await pay(inv.id, '1.00');
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: 422, field: 'invoice' });
      expect(res.body.detail).toContain(inv.status);
    }
    // also after an invoice was paid by PATCH
    const patched = await createInvoice(t, key);
    await t.request('PATCH', `/v2/invoices/${patched.id}`, { key, body: { invoiceStatus: 'paid', invoiceBalance: '0.00' } });
    expect((await pay(patched.id, '1.00')).status).toBe(422);
  });

  it('a payment above the balance is 422 naming amount, and leaves the balance alone', async ({ t, key, pay }) => {
    const inv = await createInvoice(t, key, { invoiceTotal: '50.00' });
    await pay(inv.id, '20.00');
    const res = await pay(inv.id, '30.01');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ field: 'amount', detail: 'The amount is higher than the invoice balance' });
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.invoiceBalance).toBe('30.00');
  });

  it('zero, negative (on an invoice that is no credit note) and over-maximum amounts are refused', async ({ t, key, pay }) => {
    const inv = await createInvoice(t, key);
    expect((await pay(inv.id, '0.00')).body).toMatchObject({ status: 422, field: 'amount' });
    expect((await pay(inv.id, '-1.00')).body).toMatchObject({ status: 422, field: 'amount' });
    expect((await pay(inv.id, '10000000.00')).body).toMatchObject({ status: 422, detail: 'The amount is higher than the maximum', field: 'amount' });
  });

  it('concurrent payments never take the balance below zero', async ({ t, key, pay }) => {
    const inv = await createInvoice(t, key, { invoiceTotal: '100.00' });
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(inv.id, '30.00')));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 422)).toHaveLength(2);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.invoiceBalance).toBe('10.00');
  });

  it('lists payments newest first with the invoice and customer objects', async ({ t, key, pay }) => {
    const other = await t.createAccount();
    const c = await createCustomer(t, other.liveKey, { name: 'Payer BV' });
    const inv = await createInvoice(t, other.liveKey, { customer: c.id, invoiceTotal: '480.00' });
    const p1 = await pay(inv.id, '100.00', { date: '01-03-2026' }, other.liveKey);
    const p2 = await pay(inv.id, '80.00', { date: '02-03-2026', method: 'sepa' }, other.liveKey);
    const res = await t.request('GET', '/v2/payments', { key: other.liveKey });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.links).toEqual({ previous: null, next: null });
    expect(res.body.payments.map((p: any) => p.id)).toEqual([p2.body.id, p1.body.id]);
    expect(res.body.payments[0]).toEqual({
      resource: 'payment',
      id: p2.body.id,
      date: '02-03-2026',
      amount: '80.00',
      method: 'sepa',
      invoice: { id: inv.id, number: inv.invoiceNumber, invoiceTotal: '480.00', invoiceBalance: '300.00' },
      customer: { id: c.id, number: c.customerCode, name: 'Payer BV' },
      _links: { self: { href: expect.stringMatching(new RegExp(`/v2/payments/${p2.body.id}$`)), type: 'application/hal+json' } },
    });
    const one = await t.request('GET', `/v2/payments/${p1.body.id}`, { key: other.liveKey });
    expect(one.body).toMatchObject({ id: p1.body.id, amount: '100.00', invoice: { id: inv.id } });
    expect((await t.request('GET', `/v2/payments/${p1.body.id}`, { key })).status).toBe(404);
  });
});
