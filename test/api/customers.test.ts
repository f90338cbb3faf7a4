import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('customers', () => {
  it('creates a customer from form fields with mixed-case names and `number` for the code', async ({ t, acct }) => {
    const res = await t.request('POST', '/v2/customers', {
      key: acct.liveKey,
      form: { number: 'K-100', Name: 'Jansen BV', Address: 'Dam 1', Postalcode: '1012AB', City: 'Amsterdam', Email: 'info@jansen.nl', Language: 'dutch' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body).toMatchObject({
      resource: 'customer',
      customerCode: 'K-100',
      name: 'Jansen BV',
      address: { address: 'Dam 1', postalcode: '1012AB', city: 'Amsterdam', country: 'NL' },
      email: 'info@jansen.nl',
      language: 'dutch',
    });
    expect(res.body.id).toMatch(/^cst_/);
    expect(res.body.id.length).toBeLessThanOrEqual(36);
    expect(res.body._links.self).toEqual({ href: expect.stringMatching(new RegExp(`/v2/customers/${res.body.id}$`)), type: 'application/hal+json' });
  });

  it('returns the existing customer unchanged without Overwrite, and updates it with Overwrite=true', async ({ t, acct }) => {
    const first = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'Old name' } });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'New name' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, name: 'Old name' });
    const over = await t.request('POST', '/v2/customers?Overwrite=true', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'New name' } });
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ id: first.body.id, name: 'New name' });
  });

  it('refuses a malformed email with the spec text', async ({ t, acct }) => {
    const res = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-300', name: 'X', email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, title: 'Bad Request', detail: 'Field email in wrong format', field: 'email' });
  });
});

describe('customers: read, search, update, delete', () => {
  it('gets a customer with every field of the spec', async ({ t, acct }) => {
    const created = await t.request('POST', '/v2/customers', {
      key: acct.liveKey,
      body: {
        CustomerCode: 'K-400',
        Name: 'Bakker & Zn',
        Address: 'Markt 2',
        Postalcode: '3511AA',
        City: 'Utrecht',
        Country: 'nl',
        Contact: 'Piet Bakker',
        Phone: '+31 30 123 4567',
        Mobile: '06-12345678',
        Email: 'piet@bakker.nl',
        InvoiceEmail: 'facturen@bakker.nl',
        RegistrationNumber: '12345678',
        Language: 'English',
      },
    });
    expect(created.status).toBe(201);
    const res = await t.request('GET', `/v2/customers/${created.body.id}`, { key: acct.liveKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body).toEqual({
      resource: 'customer',
      id: created.body.id,
      customerCode: 'K-400',
      number: 'K-400',
      name: 'Bakker & Zn',
      address: { address: 'Markt 2', postalcode: '3511AA', city: 'Utrecht', country: 'NL' },
      contact: 'Piet Bakker',
      phone: '+31 30 123 4567',
      mobile: '06-12345678',
      email: 'piet@bakker.nl',
      invoiceEmail: 'facturen@bakker.nl',
      registrationNumber: '12345678',
      language: 'english',
      _links: { self: { href: expect.stringMatching(new RegExp(`^http://[^/]+/v2/customers/${created.body.id}$`)), type: 'application/hal+json' } },
    });
  });

  it('searches by customer code and answers with resource, id and customerCode', async ({ t, acct }) => {
    const c = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K 500/ä', name: 'Search Me' } });
    const res = await t.request('GET', `/v2/customers/search?customer=${encodeURIComponent('K 500/ä')}`, { key: acct.liveKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resource: 'customer', id: c.body.id, customerCode: 'K 500/ä' });
    expect(Object.keys(res.body).sort()).toEqual(['_links', 'customerCode', 'id', 'resource']);
    const upper = await t.request('GET', `/v2/customers/search?Customer=${encodeURIComponent('K 500/ä')}`, { key: acct.liveKey });
    expect(upper.body.id).toBe(c.body.id);
    const missing = await t.request('GET', '/v2/customers/search?customer=K-none', { key: acct.liveKey });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('No customer exists with customerCode K-none.');
  });

  it('patches only the fields given; an empty value clears a field, an empty country means NL', async ({ t, acct }) => {
    const c = await t.request('POST', '/v2/customers', {
      key: acct.liveKey,
      body: { customerCode: 'K-600', name: 'Before', city: 'Delft', phone: '123', country: 'BE' },
    });
    const res = await t.request('PATCH', `/v2/customers/${c.body.id}`, { key: acct.liveKey, form: { Name: 'After', Phone: '', Country: '' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.body.id, customerCode: 'K-600', name: 'After', phone: null, address: { city: 'Delft', country: 'NL' } });
    const again = await t.request('GET', `/v2/customers/${c.body.id}`, { key: acct.liveKey });
    expect(again.body).toEqual(res.body);
    const emptyName = await t.request('PATCH', `/v2/customers/${c.body.id}`, { key: acct.liveKey, body: { name: '' } });
    expect(emptyName.status).toBe(400);
    expect(emptyName.body.field).toBe('name');
  });

  it('Overwrite=true with an empty Country keeps a valid country', async ({ t, acct }) => {
    await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-650', name: 'A', country: 'DE' } });
    const res = await t.request('POST', '/v2/customers?overwrite=1', { key: acct.liveKey, body: { customerCode: 'K-650', name: 'B', country: '' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'B', address: { country: 'NL' } });
  });

  it('deletes a customer without invoices (204, no body); one with invoices is 400 Customer is not empty', async ({ t, acct }) => {
    const empty = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-700', name: 'Empty' } });
    const del = await t.request('DELETE', `/v2/customers/${empty.body.id}`, { key: acct.liveKey });
    expect(del.status).toBe(204);
    expect(del.raw.length).toBe(0);
    expect((await t.request('GET', `/v2/customers/${empty.body.id}`, { key: acct.liveKey })).status).toBe(410);
    // the code is free again; search finds only the new customer
    const reborn = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-700', name: 'Reborn' } });
    expect(reborn.status).toBe(201);
    expect(reborn.body.id).not.toBe(empty.body.id);
    expect((await t.request('GET', '/v2/customers/search?customer=K-700', { key: acct.liveKey })).body.id).toBe(reborn.body.id);

    const inv = await t.request('POST', '/v2/invoices', {
      key: acct.liveKey,
      body: { customer: reborn.body.id, invoiceNumber: 'K700-1', invoiceDate: '01-01-2026', invoiceDuedate: '31-01-2026', invoiceTotal: '10.00' },
    });
    expect(inv.status).toBe(201);
    const refused = await t.request('DELETE', `/v2/customers/${reborn.body.id}`, { key: acct.liveKey });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ status: 400, title: 'Bad Request', detail: 'Customer is not empty' });
    // once its invoices are deleted, it can go
    expect((await t.request('DELETE', `/v2/invoices/${inv.body.id}`, { key: acct.liveKey })).status).toBe(204);
    expect((await t.request('DELETE', `/v2/customers/${reborn.body.id}`, { key: acct.liveKey })).status).toBe(204);
  });

  it('lists customers newest first in the envelope', async ({ t }) => {
    const other = await t.createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await t.request('POST', '/v2/customers', { key: other.liveKey, body: { customerCode: `L-${i}`, name: `N${i}` } })).body.id);
    const res = await t.request('GET', '/v2/customers', { key: other.liveKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body.count).toBe(3);
    expect(res.body.customers.map((c: any) => c.id)).toEqual(ids.reverse());
    expect(res.body.customers[0]).toMatchObject({ resource: 'customer', customerCode: 'L-2', number: 'L-2' });
    expect(res.body.links).toEqual({ previous: null, next: null });
  });
});

describe('customers: Overwrite flag', () => {
  it('reads Overwrite as true/false, 1/0, yes/no and refuses other values', async ({ t, acct }) => {
    await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-800', name: 'A' } });
    expect((await t.request('POST', '/v2/customers?Overwrite=false', { key: acct.liveKey, body: { customerCode: 'K-800', name: 'B' } })).body.name).toBe('A');
    expect((await t.request('POST', '/v2/customers?OVERWRITE=yes', { key: acct.liveKey, body: { customerCode: 'K-800', name: 'C' } })).body.name).toBe('C');
    const bad = await t.request('POST', '/v2/customers?Overwrite=maybe', { key: acct.liveKey, body: { customerCode: 'K-800', name: 'D' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ detail: 'Field overwrite in wrong format', field: 'overwrite' });
  });
});
