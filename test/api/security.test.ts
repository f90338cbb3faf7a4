// Keys, accounts and modes: who may see what.
import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/api-test.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import type { TestApp } from '../helpers/test-app.ts';

const it = apiTest.extend('a', { scope: 'file' }, ({ t }) => t.createAccount('Alpha')).extend('b', { scope: 'file' }, ({ t }) => t.createAccount('Beta'));

const admin = (t: TestApp) => ({ authorization: `Bearer ${t.adminToken}` });

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('API keys', () => {
  it('accounts get a live_ and a test_ key, stored only as hashes', async ({ t, a }) => {
    expect(a.liveKey).toMatch(/^live_[0-9A-Za-z]{40}$/);
    expect(a.testKey).toMatch(/^test_[0-9A-Za-z]{40}$/);
    const rows = await t.db.query('select * from api_keys where account_id = $1', [a.id]);
    expect(rows).toHaveLength(2);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(a.liveKey);
    expect(stored).not.toContain(a.testKey);
    expect(stored).not.toContain(a.liveKey.slice(5));
  });

  it('no key, a wrong key, a key of the wrong shape: 401', async ({ t, a }) => {
    const cases = [
      undefined,
      `live_${'A'.repeat(40)}`,
      `test_${'A'.repeat(40)}`,
      a.liveKey.slice(0, -1),
      `${a.liveKey}x`,
      a.liveKey.toUpperCase(),
      t.adminToken,
    ];
    for (const key of cases) {
      const res = await t.request('GET', '/v2/invoices', { key });
      expect(res.status, String(key)).toBe(401);
      expect(res.body).toMatchObject({ status: 401, title: 'Unauthorized' });
      expect(typeof res.body.detail).toBe('string');
    }
    // Bearer is case-insensitive, the key is not
    expect((await t.request('GET', '/v2/invoices', { headers: { authorization: `bearer ${a.liveKey}` } })).status).toBe(200);
  });

  it('a rotated key fails with 401 at once; the new key works; the other mode is untouched', async ({ t }) => {
    const acct = await t.createAccount();
    expect((await t.request('GET', '/v2/customers', { key: acct.liveKey })).status).toBe(200);
    const rotated = await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: admin(t) });
    expect(rotated.status).toBe(201);
    expect(rotated.body.key).toMatch(/^live_/);
    expect(rotated.body.key).not.toBe(acct.liveKey);
    const old = await t.request('GET', '/v2/customers', { key: acct.liveKey });
    expect(old.status).toBe(401);
    expect((await t.request('GET', '/v2/customers', { key: rotated.body.key })).status).toBe(200);
    expect((await t.request('GET', '/v2/customers', { key: acct.testKey })).status).toBe(200);
    // data stays with the account across the rotation
    const c = await t.request('POST', '/v2/customers', { key: rotated.body.key, body: { customerCode: 'R-1', name: 'R' } });
    const again = await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: admin(t) });
    expect((await t.request('GET', `/v2/customers/${c.body.id}`, { key: again.body.key })).status).toBe(200);
    expect((await t.request('GET', `/v2/customers/${c.body.id}`, { key: rotated.body.key })).status).toBe(401);
  });
});

describe('accounts and modes are isolated', () => {
  it('another account, or the other mode of the same account, answers 404 for every id', async ({ t, a, b }) => {
    const inv = await createInvoice(t, a.liveKey);
    const doc = await t.request('POST', `/v2/documents/${inv.id}`, {
      key: a.liveKey,
      body: { filename: 'a.pdf', mediatype: 'application/pdf', content: (await makePdf()).toString('base64') },
    });
    const payment = await t.request('POST', '/v2/payments', { key: a.liveKey, body: { invoice: inv.id, date: '01-02-2026', amount: '1.00' } });
    const customerId = inv.customer.id;
    for (const key of [b.liveKey, b.testKey, a.testKey]) {
      const checks: [string, string, unknown?][] = [
        ['GET', `/v2/customers/${customerId}`],
        ['PATCH', `/v2/customers/${customerId}`, { name: 'hijack' }],
        ['DELETE', `/v2/customers/${customerId}`],
        ['GET', `/v2/customers/search?customer=${encodeURIComponent(inv.customer.number)}`],
        ['GET', `/v2/invoices/${inv.id}`],
        ['PATCH', `/v2/invoices/${inv.id}`, { invoiceStatus: 'cancelled' }],
        ['DELETE', `/v2/invoices/${inv.id}`],
        ['GET', `/v2/documents/${doc.body.id}`],
        ['GET', `/v2/documents/${inv.id}/content`],
        ['DELETE', `/v2/documents/${doc.body.id}`],
        ['GET', `/v2/payments/${payment.body.id}`],
        ['POST', '/v2/payments', { invoice: inv.id, date: '01-02-2026', amount: '1.00' }],
      ];
      for (const [method, url, body] of checks) {
        const res = await t.request(method, url, { key, body });
        expect(res.status, `${method} ${url}`).toBe(404);
      }
      // cursors of another scope are not valid there either
      expect((await t.request('GET', `/v2/invoices?from=${inv.id}`, { key })).status).toBe(400);
    }
    // nothing changed for the owner
    const own = await t.request('GET', `/v2/invoices/${inv.id}`, { key: a.liveKey });
    expect(own.body).toMatchObject({ status: 'open', invoiceBalance: '479.00', document: 'a.pdf', customer: { name: 'Test Customer' } });
  });

  it('test and live lists are disjoint, for every resource', async ({ t }) => {
    const acct = await t.createAccount();
    const live = await createInvoice(t, acct.liveKey);
    const test = await createInvoice(t, acct.testKey);
    await t.request('POST', '/v2/payments', { key: acct.liveKey, body: { invoice: live.id, date: '01-02-2026', amount: '1.00' } });
    await t.request('POST', '/v2/payments', { key: acct.testKey, body: { invoice: test.id, date: '01-02-2026', amount: '2.00' } });
    const ids = async (key: string, path: string, field: string) => (await t.request('GET', path, { key })).body[field].map((x: any) => x.id) as string[];
    expect(await ids(acct.liveKey, '/v2/customers', 'customers')).toEqual([live.customer.id]);
    expect(await ids(acct.testKey, '/v2/customers', 'customers')).toEqual([test.customer.id]);
    expect(await ids(acct.liveKey, '/v2/invoices', 'invoices')).toEqual([live.id]);
    expect(await ids(acct.testKey, '/v2/invoices', 'invoices')).toEqual([test.id]);
    const livePayments = (await t.request('GET', '/v2/payments', { key: acct.liveKey })).body.payments;
    const testPayments = (await t.request('GET', '/v2/payments', { key: acct.testKey })).body.payments;
    expect(livePayments.map((p: any) => p.amount)).toEqual(['1.00']);
    expect(testPayments.map((p: any) => p.amount)).toEqual(['2.00']);
    // the same customer code lives independently in each mode
    const code = live.customer.number;
    const inTest = await t.request('POST', '/v2/customers', { key: acct.testKey, body: { customerCode: code, name: 'Test twin' } });
    expect(inTest.status).toBe(201);
    expect(inTest.body.id).not.toBe(live.customer.id);
  });
});

describe('admin API', () => {
  it('needs the admin token; API keys do not open it', async ({ t, a }) => {
    for (const headers of <Record<string, string>[]>[{}, { authorization: `Bearer ${a.liveKey}` }, { authorization: 'Bearer adm_wrong' }]) {
      expect((await t.request('POST', '/admin/accounts', { headers, body: { name: 'x' } })).status).toBe(401);
      expect((await t.request('GET', `/admin/accounts/${a.id}`, { headers })).status).toBe(401);
      expect((await t.request('POST', `/admin/accounts/${a.id}/keys/live`, { headers })).status).toBe(401);
    }
    // and nothing rotated
    expect((await t.request('GET', '/v2/customers', { key: a.liveKey })).status).toBe(200);
  });

  it('shows an account without keys, with its FTP user name and import addresses', async ({ t, a }) => {
    const res = await t.request('GET', `/admin/accounts/${a.id}`, { headers: admin(t) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: a.id,
      name: 'Alpha',
      ftpUsername: a.ftpUsername,
      importAddresses: a.importAddresses,
      createdAt: expect.any(String),
      disabled: false,
    });
    expect(a.importAddresses.live).not.toBe(a.importAddresses.test);
    expect((await t.request('GET', '/admin/accounts/acc_nope', { headers: admin(t) })).status).toBe(404);
    expect((await t.request('POST', `/admin/accounts/${a.id}/keys/other`, { headers: admin(t) })).status).toBe(400);
    expect((await t.request('POST', '/admin/accounts', { headers: admin(t), body: { name: '' } })).status).toBe(400);
  });
});
