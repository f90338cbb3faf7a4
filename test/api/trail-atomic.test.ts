// The trail and the change it records commit together (issue 44): with the database refusing the
// account's trail entries (a trigger, as a full disk or a lost connection would between the two
// statements), every kind of change made through the API and the admin API fails and leaves
// nothing changed: no rotated key, no upload key, no sender list, no file assigned or discarded,
// no person invited or removed, no account disabled. Without the trigger the same changes land,
// each with its one entry.
import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/api-test.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { postImport } from '../helpers/imports.ts';
import type { TestApp } from '../helpers/test-app.ts';

it.beforeAll(async ({ t }) => void t);

/** Makes the database refuse every trail entry of the account until the returned function runs. */
async function refuseTrailOf(t: TestApp, accountId: string): Promise<() => Promise<void>> {
  const name = `refuse_trail_${randomToken(8).toLowerCase()}`;
  await t.db.query(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'trail entry refused (test)'; end $$`);
  await t.db.query(`create trigger ${name} before insert on trail_entries for each row when (new.account_id = '${accountId}') execute function ${name}()`);
  return async () => {
    await t.db.query(`drop trigger ${name} on trail_entries`);
    await t.db.query(`drop function ${name}()`);
  };
}

const entries = async (t: TestApp, accountId: string) =>
  (await t.request('GET', `/admin/accounts/${accountId}/trail?limit=100`, { key: t.adminToken })).body.trail as { action: string }[];

describe('a change and its trail entry commit together', () => {
  it('the trail refused: every kind of change fails and changes nothing; allowed again: each lands with its entry', async ({ t }) => {
    const acct = await t.createAccount();
    const key = acct.liveKey;
    const admin = { key: t.adminToken };
    const waiting = await postImport(t.request, key, 'no-such-invoice.pdf', await makePdf());
    const discardable = await postImport(t.request, key, 'discard-me.pdf', await makePdf());
    const inv = await createInvoice(t, key);
    const invited = await t.request('POST', `/admin/accounts/${acct.id}/users`, {
      ...admin,
      body: { email: `kept-${randomToken(6).toLowerCase()}@example.com` },
    });
    expect(invited.status).toBe(201);
    const upload = await t.request('POST', '/v2/account/upload-keys', { key, body: { name: 'Kept' } });
    expect(upload.status).toBe(201);
    const before = (await entries(t, acct.id)).length;
    const sendersBefore = (await t.request('GET', '/v2/account/senders', { key })).body;
    const people = async () =>
      ((await t.request('GET', `/admin/accounts/${acct.id}/users`, admin)).body.users as { email: string }[]).map((u) => u.email).sort();
    const peopleBefore = await people();
    const keysBefore = (await t.request('GET', '/v2/account/upload-keys', { key })).body.uploadKeys.map((k: { id: string }) => k.id);

    const allow = await refuseTrailOf(t, acct.id);
    const attempts = {
      rotate: await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, admin),
      disable: await t.request('PATCH', `/admin/accounts/${acct.id}`, { ...admin, body: { disabled: true } }),
      invite: await t.request('POST', `/admin/accounts/${acct.id}/users`, { ...admin, body: { email: 'never@example.com' } }),
      remove: await t.request('DELETE', `/admin/accounts/${acct.id}/users/${invited.body.id}`, admin),
      uploadKey: await t.request('POST', '/v2/account/upload-keys', { key, body: { name: 'Never' } }),
      revoke: await t.request('DELETE', `/v2/account/upload-keys/${upload.body.id}`, { key }),
      senders: await t.request('PUT', '/v2/account/senders', { key, body: { policy: 'listed', senders: ['@never.example'] } }),
      assign: await t.request('POST', `/v2/imports/${waiting.id}/attach`, { key, body: { invoice: inv.invoiceNumber } }),
      discard: await t.request('DELETE', `/v2/imports/${discardable.id}`, { key }),
    };
    for (const [what, res] of Object.entries(attempts)) expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(500);
    // nothing changed
    expect((await t.request('GET', '/v2/customers', { key })).status).toBe(200); // not rotated, not disabled
    expect(await people()).toEqual(peopleBefore);
    expect((await t.request('GET', '/v2/account/upload-keys', { key })).body.uploadKeys.map((k: { id: string }) => k.id)).toEqual(keysBefore);
    expect((await t.request('GET', '/v2/imports', { key: upload.body.key })).status).toBe(200); // not revoked
    expect((await t.request('GET', '/v2/account/senders', { key })).body).toEqual(sendersBefore);
    const afterAssign = (await t.request('GET', `/v2/imports/${waiting.id}`, { key })).body;
    expect(afterAssign.status).not.toBe('attached');
    expect((await t.request('GET', `/v2/imports/${discardable.id}`, { key })).status).toBe(200); // not discarded
    expect((await entries(t, acct.id)).length).toBe(before);

    await allow();
    expect((await t.request('PUT', '/v2/account/senders', { key, body: { policy: 'listed', senders: ['@now.example'] } })).status).toBe(200);
    expect((await t.request('POST', `/v2/imports/${waiting.id}/attach`, { key, body: { invoice: inv.invoiceNumber } })).status).toBe(200);
    expect((await t.request('DELETE', `/v2/imports/${discardable.id}`, { key })).status).toBe(204);
    expect((await t.request('DELETE', `/v2/account/upload-keys/${upload.body.id}`, { key })).status).toBe(204);
    expect((await t.request('DELETE', `/admin/accounts/${acct.id}/users/${invited.body.id}`, admin)).status).toBe(204);
    const rotated = await t.request('POST', `/admin/accounts/${acct.id}/keys/live`, admin);
    expect(rotated.status).toBe(201);
    expect((await t.request('GET', '/v2/customers', { key })).status).toBe(401);
    const actions = (await entries(t, acct.id)).slice(0, 6).map((e) => e.action);
    expect(actions).toEqual(['api_key.rotated', 'user.removed', 'upload_key.revoked', 'import.discarded', 'import.assigned', 'senders.changed']);
  });
});
