// The trail over HTTP (issue 44): each kind of change made through the API or the admin API is
// read back through GET /v2/account/trail (the owner's API key) and GET /admin/accounts/{id}/trail
// (the operator), with who, when, from where and what; nothing of another account or mode; CSV.
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { postImport } from '../helpers/imports.ts';
import type { TestApp } from '../helpers/test-app.ts';

it.beforeAll(async ({ t }) => void t);

const admin = (t: TestApp) => t.adminToken;
async function trailOf(t: TestApp, key: string, query = '') {
  const res = await t.request('GET', `/v2/account/trail${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.trail as any[];
}
async function adminTrail(t: TestApp, accountId: string, query = '') {
  const res = await t.request('GET', `/admin/accounts/${accountId}/trail${query}`, { key: admin(t) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.trail as any[];
}

describe('the trail records each change and shows it to the owner and the operator', () => {
  it('a key rotated by the operator: in the mode it names, with the operator as actor; the new key never in it', async ({ t }) => {
    const acct = await t.createAccount();
    const res = await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, { key: admin(t) });
    expect(res.status).toBe(201);
    const [entry] = await trailOf(t, res.body.key);
    expect(entry).toMatchObject({
      resource: 'trail_entry',
      mode: 'live',
      action: 'api_key.rotated',
      target: 'live',
      actor: { kind: 'operator', label: 'operator' },
    });
    expect(entry.address).toBeTruthy();
    expect(Date.now() - Date.parse(entry.at)).toBeLessThan(60_000);
    expect(JSON.stringify(entry)).not.toContain(res.body.key);
    expect(await trailOf(t, acct.testKey)).toEqual([]); // the test mode's trail has none of it
    expect((await adminTrail(t, acct.id)).map((e) => e.id)).toEqual([entry.id]);
  });

  it('disabled and enabled, people invited and removed: whole-account entries both modes see', async ({ t }) => {
    const acct = await t.createAccount();
    expect((await t.request('PATCH', `/admin/accounts/${acct.id}`, { key: admin(t), body: { disabled: true } })).status).toBe(200);
    expect((await t.request('PATCH', `/admin/accounts/${acct.id}`, { key: admin(t), body: { disabled: false } })).status).toBe(200);
    const invited = await t.request('POST', `/admin/accounts/${acct.id}/users`, { key: admin(t), body: { email: 'colleague@example.com' } });
    expect(invited.status).toBe(201);
    expect((await t.request('DELETE', `/admin/accounts/${acct.id}/users/${invited.body.id}`, { key: admin(t) })).status).toBe(204);
    const actions = (await trailOf(t, acct.testKey)).map((e) => [e.action, e.target, e.mode]);
    expect(actions).toEqual([
      ['user.removed', 'colleague@example.com', null],
      ['user.invited', 'colleague@example.com', null],
      ['account.enabled', acct.id, null],
      ['account.disabled', acct.id, null],
    ]);
    const all = await trailOf(t, acct.liveKey);
    expect(JSON.stringify(all)).not.toMatch(/invite\/|inviteUrl|token/);
    expect((await adminTrail(t, acct.id, '?action=user')).map((e) => e.action)).toEqual(['user.removed', 'user.invited']);
  });

  it('files assigned, retried and discarded by hand, sender lists changed: by the API key of the mode', async ({ t }) => {
    const acct = await t.createAccount();
    const key = acct.liveKey;
    const a = await postImport(t.request, key, 'nothing-like-it-1.pdf', await makePdf());
    const b = await postImport(t.request, key, 'nothing-like-it-2.pdf', await makePdf());
    const inv = await createInvoice(t, key);
    const assigned = await t.request('POST', `/v2/imports/${a.id}/attach`, { key, body: { invoice: inv.invoiceNumber } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    const retried = await t.request('POST', `/v2/imports/${b.id}/retry`, { key });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect((await t.request('DELETE', `/v2/imports/${b.id}`, { key })).status).toBe(204);
    expect((await t.request('PUT', '/v2/account/senders', { key, body: { policy: 'listed', senders: ['@supplier.example'] } })).status).toBe(200);
    const entries = await trailOf(t, key);
    expect(entries.map((e) => [e.action, e.target])).toEqual([
      ['senders.changed', null],
      ['import.discarded', b.id],
      ['import.retried', b.id],
      ['import.assigned', a.id],
    ]);
    expect(entries[3].detail).toEqual({ filename: 'nothing-like-it-1.pdf', invoice: inv.invoiceNumber });
    for (const e of entries) expect(e.actor).toEqual({ kind: 'api_key', id: null, label: 'API key (live)' });
    expect(entries[0].detail).toEqual({ policy: 'listed', senders: ['@supplier.example'] });
    // another account's key and the other mode see none of it
    const other = await t.createAccount();
    expect(await trailOf(t, other.liveKey)).toEqual([]);
    expect(await trailOf(t, acct.testKey)).toEqual([]);
    // a refused change leaves no entry
    expect((await t.request('DELETE', `/v2/imports/${b.id}`, { key })).status).toBeGreaterThanOrEqual(400);
    expect(await trailOf(t, key)).toHaveLength(entries.length);
  });

  it('pages, filters (400 with field on a wrong one), CSV; the admin route 404s an unknown account, 401s without the token', async ({ t }) => {
    const acct = await t.createAccount();
    for (const mode of ['live', 'test', 'live']) await t.request('POST', `/admin/accounts/${acct.id}/keys/${mode}`, { key: admin(t) });
    const key = (await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, { key: admin(t) })).body.key;
    const first = await t.request('GET', '/v2/account/trail?limit=2', { key });
    expect(first.body.trail).toHaveLength(2);
    expect(first.body.links.next.href).toContain('from=trl_');
    const next = await t.request('GET', first.body.links.next.href.replace(/^https?:\/\/[^/]+/, ''), { key });
    expect(next.body.trail).toHaveLength(1);
    expect((await adminTrail(t, acct.id, '?mode=test')).map((e) => e.mode)).toEqual(['test']);
    expect(await trailOf(t, key, '?since=2999-01-01')).toEqual([]);
    for (const [q, field] of [
      ['actor=robot', 'actor'],
      ['since=2026-02-31', 'since'],
      ['action=DROP TABLE', 'action'],
      ['limit=0', 'limit'],
    ]) {
      const bad = await t.request('GET', `/v2/account/trail?${q}`, { key });
      expect(bad.status, q).toBe(400);
      expect(bad.body, q).toMatchObject({ status: 400, field });
    }
    const csv = await t.request('GET', '/v2/account/trail?format=csv', { key });
    expect(csv.status).toBe(200);
    expect(String(csv.headers['content-type'])).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe('at,mode,actor_kind,actor,address,action,target,detail');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/,live,operator,operator,.*,api_key\.rotated,live,/);
    expect((await t.request('GET', '/admin/accounts/acc_nosuchaccount/trail', { key: admin(t) })).status).toBe(404);
    expect((await t.request('GET', `/admin/accounts/${acct.id}/trail`, { key })).status).toBe(401);
    expect((await t.request('GET', '/v2/account/trail')).status).toBe(401);
    // an upload key opens no trail: 403 with the error body
    const made = await t.request('POST', '/v2/account/upload-keys', { key, body: { Name: 'Scanner' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const refused = await t.request('GET', '/v2/account/trail', { key: made.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403 });
  });
});
