import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/api-test.ts';
import { createInvoice } from '../helpers/fixtures.ts';

const withKey = (k: string) => ({ 'idempotency-key': k });
const it = apiTest.extend(
  'count',
  ({ t, acct }) =>
    async (table: string, where = 'true', params: unknown[] = []) =>
      (await t.db.query<{ n: number }>(`select count(*)::int as n from ${table} where account_id = $1 and ${where}`, [acct.id, ...params]))[0].n,
);

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('Idempotency-Key', () => {
  it('a replay returns the stored response with Idempotent-Replayed: true and creates nothing', async ({ t, key, count }) => {
    const inv = await createInvoice(t, key, { invoiceTotal: '480.00' });
    const body = { invoice: inv.id, date: '01-03-2026', amount: '100.00' };
    const first = await t.request('POST', '/v2/payments', { key, body, headers: withKey('pay-1') });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const replay = await t.request('POST', '/v2/payments', { key, body, headers: withKey('pay-1') });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(replay.body).toEqual(first.body);
    expect(await count('payments', 'invoice_id = $2', [inv.id])).toBe(1);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.invoiceBalance).toBe('380.00');
  });

  it('the same key with a different body or path is refused', async ({ t, key }) => {
    const first = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'I-1', name: 'A' }, headers: withKey('cst-1') });
    expect(first.status).toBe(201);
    const other = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'I-1', name: 'B' }, headers: withKey('cst-1') });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ status: 422, field: 'Idempotency-Key' });
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    const path = await t.request('POST', '/v2/customers?Overwrite=true', { key, body: { customerCode: 'I-1', name: 'A' }, headers: withKey('cst-1') });
    expect(path.status).toBe(422);
    expect((await t.request('GET', `/v2/customers/${first.body.id}`, { key })).body.name).toBe('A');
  });

  it('keys belong to one account and mode', async ({ t, acct, key }) => {
    const body = { customerCode: 'I-2', name: 'Shared key' };
    const live = await t.request('POST', '/v2/customers', { key, body, headers: withKey('shared') });
    const test = await t.request('POST', '/v2/customers', { key: acct.testKey, body, headers: withKey('shared') });
    const other = await t.createAccount();
    const foreign = await t.request('POST', '/v2/customers', { key: other.liveKey, body, headers: withKey('shared') });
    for (const res of [live, test, foreign]) {
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([live.body.id, test.body.id, foreign.body.id]).size).toBe(3);
  });

  it('client errors are stored and replayed as well', async ({ t, key }) => {
    const first = await t.request('POST', '/v2/payments', {
      key,
      body: { invoice: 'inv_nothing', date: '01-03-2026', amount: '1.00' },
      headers: withKey('err-1'),
    });
    expect(first.status).toBe(404);
    const replay = await t.request('POST', '/v2/payments', {
      key,
      body: { invoice: 'inv_nothing', date: '01-03-2026', amount: '1.00' },
      headers: withKey('err-1'),
    });
    expect(replay.status).toBe(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('concurrent requests with one key create one object', async ({ t, key, count }) => {
    const body = { customerCode: 'I-race', name: 'Race' };
    const results = await Promise.all(Array.from({ length: 5 }, () => t.request('POST', '/v2/customers', { key, body, headers: withKey('race') })));
    const fresh = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      // either replayed after the first finished, or told it is still in progress
      if (r.status === 409) expect(r.body.field).toBe('Idempotency-Key');
      else expect(r).toMatchObject({ status: 201, headers: { 'idempotent-replayed': 'true' }, body: { id: fresh[0].body.id } });
    }
    expect(await count('customers', 'customer_code = $2', ['I-race'])).toBe(1);
  });

  it('keys are kept 24 hours: a 23-hour-old key still replays, a 25-hour-old one is a new request', async ({ t, acct, key }) => {
    const body = { customerCode: 'I-ttl', name: 'TTL' };
    const first = await t.request('POST', '/v2/customers', { key, body, headers: withKey('ttl-1') });
    const age = (hours: number) =>
      t.db.query(`update idempotency_keys set created_at = now() - make_interval(hours => $2::int) where account_id = $1 and key = 'ttl-1'`, [acct.id, hours]);
    await age(23);
    const replay = await t.request('POST', '/v2/customers', { key, body, headers: withKey('ttl-1') });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await age(25);
    const fresh = await t.request('POST', '/v2/customers', { key, body, headers: withKey('ttl-1') });
    // a new request: the code exists, so the service answers 200 with the same customer, not a replay
    expect(fresh.status).toBe(200);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.id).toBe(first.body.id);
    const row = await t.db.query<{ age: number }>(
      `select extract(epoch from now() - created_at)::int as age from idempotency_keys where account_id = $1 and key = 'ttl-1'`,
      [acct.id],
    );
    expect(row[0].age).toBeLessThan(3600);
  });

  it('purgeExpired removes keys older than the TTL and keeps younger ones', async ({ t, acct, key }) => {
    await t.request('POST', '/v2/customers', { key, body: { customerCode: 'I-p1', name: 'P' }, headers: withKey('purge-old') });
    await t.request('POST', '/v2/customers', { key, body: { customerCode: 'I-p2', name: 'P' }, headers: withKey('purge-young') });
    await t.db.query(`update idempotency_keys set created_at = now() - interval '25 hours' where account_id = $1 and key = 'purge-old'`, [acct.id]);
    await t.db.query(`update idempotency_keys set created_at = now() - interval '23 hours' where account_id = $1 and key = 'purge-young'`, [acct.id]);
    expect(await t.c.idempotency.purgeExpired()).toBeGreaterThanOrEqual(1);
    const keys = (await t.db.query<{ key: string }>('select key from idempotency_keys where account_id = $1', [acct.id])).map((r) => r.key);
    expect(keys).not.toContain('purge-old');
    expect(keys).toContain('purge-young');
  });

  it('a key longer than 255 characters is 400; GET ignores the header', async ({ t, key }) => {
    const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'I-long', name: 'L' }, headers: withKey('k'.repeat(256)) });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('Idempotency-Key');
    const get = await t.request('GET', '/v2/customers', { key, headers: withKey('get-1') });
    expect(get.status).toBe(200);
    expect(await t.db.query(`select 1 from idempotency_keys where key = 'get-1'`)).toHaveLength(0);
  });
});
