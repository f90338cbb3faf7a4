// Credit notes: invoices with a negative total (docs/api.md, "Credit notes"), on PGlite and PostgreSQL.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/api-test.ts';
import { createInvoice } from '../helpers/fixtures.ts';

const it = apiTest.extend(
  'pay',
  ({ t, key }) =>
    (invoice: string, amount: unknown) =>
      t.request('POST', '/v2/payments', { key, body: { invoice, date: '10-02-2026', amount } }),
);

it.beforeAll(async ({ t }) => void t);

describe('credit notes', () => {
  it('an invoice with a negative total is created, read, listed and patched with its sign', async ({ t, key }) => {
    const cn = await createInvoice(t, key, { invoiceTotal: '-233.47' });
    expect(cn).toMatchObject({ invoiceTotal: '-233.47', invoiceBalance: '-233.47', status: 'open' });
    const asNumber = await createInvoice(t, key, { invoiceTotal: -8.79, invoiceBalance: '-8,79' });
    expect(asNumber).toMatchObject({ invoiceTotal: '-8.79', invoiceBalance: '-8.79' });
    expect((await t.request('GET', `/v2/invoices/${cn.id}`, { key })).body).toMatchObject({ invoiceTotal: '-233.47', invoiceBalance: '-233.47' });
    const patched = await t.request('PATCH', `/v2/invoices/${cn.id}`, { key, body: { invoiceBalance: '-100.00' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ invoiceTotal: '-233.47', invoiceBalance: '-100.00' });
  });

  it('a balance on the wrong side of 0.00 or beyond the total is 422 invoicebalance', async ({ t, key }) => {
    for (const [total, balance] of [
      ['-233.47', '10.00'],
      ['-233.47', '-233.48'],
      ['480.00', '-1.00'],
    ]) {
      const res = await t.request('POST', '/v2/invoices', {
        key,
        body: {
          customer: (await createInvoice(t, key)).customer.id,
          invoiceNumber: `CN-${total}-${balance}-${Date.now()}`,
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: total,
          invoiceBalance: balance,
        },
      });
      expect(res.status, `${total} ${balance}`).toBe(422);
      expect(res.body).toMatchObject({ status: 422, field: 'invoicebalance' });
    }
    const cn = await createInvoice(t, key, { invoiceTotal: '-50.00' });
    const flipped = await t.request('PATCH', `/v2/invoices/${cn.id}`, { key, body: { invoiceTotal: '50.00' } });
    expect(flipped.body).toMatchObject({ status: 422, field: 'invoicebalance' }); // its balance -50.00 stays, below 0.00
  });

  it('the limits hold the absolute value: over MAX_AMOUNT 422, more than 10 characters with the sign 400', async ({ t, key }) => {
    const over = await t.request('PATCH', `/v2/invoices/${(await createInvoice(t, key)).id}`, { key, body: { invoiceTotal: '-10000000.00' } });
    expect(over.body).toMatchObject({ status: 422, field: 'invoicetotal', detail: 'The amount is higher than the maximum' });
    const long = await t.request('PATCH', `/v2/invoices/${(await createInvoice(t, key)).id}`, { key, body: { invoiceTotal: '-9999999.99' } });
    expect(long.body).toMatchObject({ status: 400, field: 'invoiceTotal' });
    expect(await createInvoice(t, key, { invoiceTotal: '-999999.99' })).toMatchObject({ invoiceTotal: '-999999.99' });
  });

  it("refunds (negative payments) move a credit note's balance toward 0.00; at 0.00 it is paid", async ({ t, key, pay }) => {
    const cn = await createInvoice(t, key, { invoiceTotal: '-233.47' });
    const first = await pay(cn.id, '-33.47');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: '-33.47', invoiceTotal: '-233.47', invoiceBalance: '-200.00' });
    expect((await t.request('GET', `/v2/invoices/${cn.id}`, { key })).body).toMatchObject({ status: 'open', invoiceBalance: '-200.00' });
    const rest = await pay(cn.id, '-200.00');
    expect(rest.body).toMatchObject({ amount: '-200.00', invoiceBalance: '0.00' });
    expect((await t.request('GET', `/v2/invoices/${cn.id}`, { key })).body).toMatchObject({ status: 'paid', invoiceBalance: '0.00' });
    expect((await pay(cn.id, '-1.00')).body).toMatchObject({ status: 422, field: 'invoice' });
    const listed = await t.request('GET', '/v2/payments', { key });
    expect(
      listed.body.payments
        .filter((p: any) => p.invoice.id === cn.id)
        .map((p: any) => p.amount)
        .sort(),
    ).toEqual(['-200.00', '-33.47']);
  });

  it('a payment of the wrong sign or beyond the balance is 422 amount and changes nothing', async ({ t, key, pay }) => {
    const cn = await createInvoice(t, key, { invoiceTotal: '-233.47' });
    const positive = await pay(cn.id, '10.00');
    expect(positive.body).toMatchObject({ status: 422, field: 'amount' });
    expect(positive.body.detail).toBe('The invoice is a credit note (total -233.47): a refund is a negative amount, such as -233.47');
    expect((await pay(cn.id, '-233.48')).body).toMatchObject({
      status: 422,
      field: 'amount',
      detail: "The refund is more than the credit note's balance -233.47",
    });
    expect((await pay(cn.id, '-0.00')).body).toMatchObject({ status: 422, field: 'amount' });
    expect((await pay(cn.id, '-10000000.00')).body).toMatchObject({ status: 422, field: 'amount', detail: 'The amount is higher than the maximum' });
    const inv = await createInvoice(t, key, { invoiceTotal: '50.00' });
    expect((await pay(inv.id, '-5.00')).body).toMatchObject({ status: 422, field: 'amount' });
    expect((await t.request('GET', `/v2/invoices/${cn.id}`, { key })).body.invoiceBalance).toBe('-233.47');
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.invoiceBalance).toBe('50.00');
  });

  it("concurrent refunds never take a credit note's balance past 0.00", async ({ t, key, pay }) => {
    const cn = await createInvoice(t, key, { invoiceTotal: '-100.00' });
    const results = await Promise.all(Array.from({ length: 5 }, () => pay(cn.id, '-30.00')));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect((await t.request('GET', `/v2/invoices/${cn.id}`, { key })).body.invoiceBalance).toBe('-10.00');
  });
});
