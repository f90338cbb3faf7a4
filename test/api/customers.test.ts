import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let acct: TestAccount;

beforeAll(async () => {
  t = await startTestApp();
  acct = await t.createAccount();
});
afterAll(() => t?.close());

describe('customers', () => {
  it('creates a customer from form fields with mixed-case names and `number` for the code', async () => {
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

  it('returns the existing customer unchanged without Overwrite, and updates it with Overwrite=true', async () => {
    const first = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'Old name' } });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'New name' } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, name: 'Old name' });
    const over = await t.request('POST', '/v2/customers?Overwrite=true', { key: acct.liveKey, body: { CustomerCode: 'K-200', Name: 'New name' } });
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ id: first.body.id, name: 'New name' });
  });

  it('refuses a malformed email with the spec text', async () => {
    const res = await t.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'K-300', name: 'X', email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, title: 'Bad Request', detail: 'Field email in wrong format', field: 'email' });
  });
});
