import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createCustomer, createInvoice } from '../helpers/fixtures.ts';

let customers: string[]; // newest first
let invoices: { id: string; status: string }[]; // newest first

it.beforeAll(async ({ t, key }) => {
  customers = [];
  for (let i = 0; i < 7; i++) customers.unshift((await createCustomer(t, key, { customerCode: `P-${i}` })).id);
  invoices = [];
  for (let i = 0; i < 7; i++) {
    const inv = await createInvoice(t, key, { customer: customers[0], invoiceStatus: i % 2 ? 'paid' : 'open', ...(i % 2 ? { invoiceBalance: '0.00' } : {}) });
    invoices.unshift({ id: inv.id, status: inv.status });
  }
});

const pathOf = (href: string) => href.replace(/^https?:\/\/[^/]+/, '');
const query = (href: string) => Object.fromEntries(new URL(href).searchParams);

describe('pagination', () => {
  it('pages newest first with next links carrying from and limit', async ({ t, key }) => {
    const seen: string[] = [];
    let url: string | null = '/v2/customers?limit=3';
    const pages: any[] = [];
    while (url) {
      const res = await t.request('GET', url, { key });
      expect(res.status).toBe(200);
      pages.push(res.body);
      seen.push(...res.body.customers.map((c: any) => c.id));
      expect(res.body.count).toBe(res.body.customers.length);
      url = res.body.links.next ? pathOf(res.body.links.next.href) : null;
    }
    expect(seen).toEqual(customers);
    expect(pages.map((p) => p.count)).toEqual([3, 3, 1]);
    expect(pages[0].links.previous).toBeNull();
    expect(pages[0].links.next).toEqual({ href: expect.stringMatching(/^http:\/\/[^/]+\/v2\/customers\?/), type: 'application/hal+json' });
    expect(query(pages[0].links.next.href)).toEqual({ from: customers[3], limit: '3' });
    expect(pages[2].links.next).toBeNull();
    expect(query(pages[2].links.previous.href)).toEqual({ from: customers[3], limit: '3' });
    expect(query(pages[1].links.previous.href)).toEqual({ from: customers[0], limit: '3' });
  });

  it('from is inclusive, and previous walks back to the newest item', async ({ t, key }) => {
    const res = await t.request('GET', `/v2/customers?From=${customers[4]}&Limit=2`, { key });
    expect(res.body.customers.map((c: any) => c.id)).toEqual([customers[4], customers[5]]);
    expect(query(res.body.links.next.href)).toEqual({ from: customers[6], limit: '2' });
    expect(query(res.body.links.previous.href)).toEqual({ from: customers[2], limit: '2' });
    const back = await t.request('GET', pathOf(res.body.links.previous.href), { key });
    expect(back.body.customers.map((c: any) => c.id)).toEqual([customers[2], customers[3]]);
    const first = await t.request('GET', pathOf(back.body.links.previous.href), { key });
    expect(first.body.customers.map((c: any) => c.id)).toEqual([customers[0], customers[1]]);
    expect(first.body.links.previous).toBeNull();
  });

  it('keeps the InvoiceStatus filter in both links', async ({ t, key }) => {
    const paid = invoices.filter((i) => i.status === 'paid').map((i) => i.id);
    expect(paid).toHaveLength(3);
    const p1 = await t.request('GET', '/v2/invoices?InvoiceStatus=paid&limit=2', { key });
    expect(p1.body.invoices.map((i: any) => i.id)).toEqual(paid.slice(0, 2));
    expect(query(p1.body.links.next.href)).toEqual({ invoicestatus: 'paid', from: paid[2], limit: '2' });
    const p2 = await t.request('GET', pathOf(p1.body.links.next.href), { key });
    expect(p2.body.invoices.map((i: any) => i.id)).toEqual([paid[2]]);
    expect(p2.body.links.next).toBeNull();
    expect(query(p2.body.links.previous.href)).toEqual({ invoicestatus: 'paid', from: paid[0], limit: '2' });
  });

  it('limit bounds: default 50, 1 to 250, anything else 400 naming limit', async ({ t, key }) => {
    const all = await t.request('GET', '/v2/invoices', { key });
    expect(all.body.count).toBe(7);
    expect(all.body.links.next).toBeNull();
    const one = await t.request('GET', '/v2/invoices?limit=1', { key });
    expect(one.body.invoices.map((i: any) => i.id)).toEqual([invoices[0].id]);
    expect((await t.request('GET', '/v2/invoices?limit=250', { key })).body.count).toBe(7);
    for (const bad of ['0', '251', '-1', 'ten', '1.5', '1e2', '%20']) {
      const res = await t.request('GET', `/v2/invoices?limit=${bad}`, { key });
      expect(res.status, bad).toBe(400);
      expect(res.body.field, bad).toBe('limit');
    }
  });

  it('a cursor that is no item of the list is 400 naming from', async ({ t, key }) => {
    const cases = ['cst_doesnotexist', invoices[0].id /* an invoice id on the customer list */, 'x'.repeat(37), 'bad cursor!'];
    for (const from of cases) {
      const res = await t.request('GET', `/v2/customers?from=${encodeURIComponent(from)}`, { key });
      expect(res.status, from).toBe(400);
      expect(res.body.field, from).toBe('from');
    }
    // an open invoice is not on the paid list
    const open = invoices.find((i) => i.status === 'open')!;
    const res = await t.request('GET', `/v2/invoices?invoicestatus=paid&from=${open.id}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('from');
  });

  it('a deleted item leaves the list; pages stay consistent', async ({ t }) => {
    const acct2 = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.unshift((await createCustomer(t, acct2.liveKey)).id);
    await t.request('DELETE', `/v2/customers/${ids[1]}`, { key: acct2.liveKey });
    const res = await t.request('GET', '/v2/customers?limit=2', { key: acct2.liveKey });
    expect(res.body.customers.map((c: any) => c.id)).toEqual([ids[0], ids[2]]);
    expect(query(res.body.links.next.href).from).toBe(ids[3]);
    expect((await t.request('GET', `/v2/customers?from=${ids[1]}`, { key: acct2.liveKey })).status).toBe(400);
  });

  it('payments page the same way', async ({ t, key }) => {
    const inv = await createInvoice(t, key, { invoiceTotal: '100.00' });
    const pays: string[] = [];
    for (let i = 0; i < 3; i++)
      pays.unshift((await t.request('POST', '/v2/payments', { key, body: { invoice: inv.id, date: '01-02-2026', amount: '1.00' } })).body.id);
    const p1 = await t.request('GET', '/v2/payments?limit=2', { key });
    expect(p1.body.payments.map((p: any) => p.id)).toEqual(pays.slice(0, 2));
    expect(p1.body.links.next).toEqual({ href: expect.stringContaining(`from=${pays[2]}`), type: 'application/hal+json' });
    const p2 = await t.request('GET', pathOf(p1.body.links.next.href), { key });
    expect(p2.body.payments.map((p: any) => p.id)).toEqual([pays[2]]);
  });

  it('PUBLIC_URL sets the base of every link', async ({ t }) => {
    const t2 = await t.anotherNode({ config: { publicUrl: 'https://invoices.example.com/' } });
    try {
      const k = (await t2.createAccount()).liveKey;
      await createCustomer(t2, k);
      await createCustomer(t2, k);
      const res = await t2.request('GET', '/v2/customers?limit=1', { key: k });
      expect(res.body.links.next.href).toMatch(/^https:\/\/invoices\.example\.com\/v2\/customers\?from=cst_\w+&limit=1$/);
      expect(res.body.customers[0]._links.self.href).toMatch(/^https:\/\/invoices\.example\.com\/v2\/customers\/cst_/);
    } finally {
      await t2.close();
    }
  });
});
