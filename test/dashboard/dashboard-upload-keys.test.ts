// Upload keys in the dashboard (issue 44): an owner makes one on the settings page (shown once: a
// reload shows only that it was shown), sees it listed with its networks and last use, revokes it;
// a member sees the list without controls and a form posted anyway gets 403. Real service over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import { formClient, type FormClient } from './form-client.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: FormClient;
let member: FormClient;
let ownerId: string;
let ownerEmail: string;

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  ownerEmail = `o${randomToken(8).toLowerCase()}@example.com`;
  const invite = await t.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email: ownerEmail } });
  ownerId = invite.body.id;
  const password = `pw-${randomToken(16)}`;
  await t.svc.container.users.acceptInvite(invite.body.inviteUrl.split('/').pop(), password);
  owner = formClient(t.url);
  expect((await owner.signIn({ email: ownerEmail, password })).headers.location).toBe('/dashboard');
  const memberWho = { email: `m${randomToken(8).toLowerCase()}@example.com`, password: `pw-${randomToken(16)}` };
  await owner.get('/dashboard/people');
  await owner.post('/dashboard/people', { email: memberWho.email });
  const link = /id="invite-link"[^>]*>([^<]+)</.exec((await owner.get('/dashboard/people')).body)![1];
  await t.svc.container.users.acceptInvite(link.split('/').pop()!, memberWho.password);
  member = formClient(t.url);
  expect((await member.signIn(memberWho)).headers.location).toBe('/dashboard');
});
afterAll(() => t?.close());

describe('upload keys in the dashboard', () => {
  it('an owner makes one (shown once), it uploads and is listed with its last use, and the owner revokes it', async () => {
    await owner.get('/dashboard/settings');
    const made = await owner.post('/dashboard/settings/upload-keys', { name: 'Ricoh 3rd floor', networks: '127.0.0.0/8\n10.1.0.0/16' });
    expect(made.status).toBe(303);
    const page = await owner.get('/dashboard/settings');
    const key = /id="new-upload-key">([^<]+)</.exec(page.body)?.[1];
    expect(key).toMatch(/^live_up_[0-9A-Za-z]{40}$/);
    expect(page.body).toContain('Ricoh 3rd floor');
    const again = await owner.get('/dashboard/settings');
    expect(again.body).not.toContain(key!);
    expect(again.body).toContain('id="already-shown"');
    expect(again.body).toContain('127.0.0.0/8, 10.1.0.0/16');
    expect(again.body).toMatch(/class="upload-key-used">Never</);

    const pdf = await makePdf('dashboard upload key');
    const sent = await t.api('POST', '/v2/imports', { auth: key!, body: { filename: 'scan.pdf', content: pdf.toString('base64') } });
    expect(sent.status).toBe(202);
    await expect.poll(async () => /class="upload-key-used">([^<]+)</.exec((await owner.get('/dashboard/settings')).body)?.[1]).toMatch(/ from 127\.0\.0\.1 \(http\)$/);

    const id = /<tr data-id="(upk_\w+)">/.exec(again.body)![1];
    const revoked = await owner.post(`/dashboard/settings/upload-keys/${id}/revoke`, {});
    expect(revoked.status).toBe(303);
    const after = await owner.get('/dashboard/settings');
    expect(after.body).toContain('The upload key Ricoh 3rd floor is revoked.');
    expect(after.body).toContain('id="no-upload-keys"');
    expect((await t.api('GET', '/v2/imports', { auth: key! })).status).toBe(401);

    const trail = await t.svc.container.trail.page({ accountId: acct.id, action: 'upload_key' }, { limit: 10 });
    expect(trail.items.map((e) => [e.action, e.actor.kind, e.actor.id, e.actor.label, e.target])).toEqual([
      ['upload_key.revoked', 'person', ownerId, ownerEmail, id],
      ['upload_key.created', 'person', ownerId, ownerEmail, id],
    ]);
  });

  it("says where the mode's API key was used (channel and address), so its integrations can be moved", async () => {
    const before = await owner.get('/dashboard/settings');
    expect(before.body).not.toMatch(/<ul id="key-uses">[\s\S]*\(http\)/);
    expect((await t.api('GET', '/v2/customers', { auth: acct.liveKey })).status).toBe(200);
    await expect.poll(async () => /<ul id="key-uses">([\s\S]*?)<\/ul>/.exec((await owner.get('/dashboard/settings')).body)?.[1]).toMatch(/ from 127\.0\.0\.1 \(http\)/);
  });

  it('refuses a network that is no CIDR block on the page, saying why', async () => {
    await owner.get('/dashboard/settings');
    await owner.post('/dashboard/settings/upload-keys', { name: 'Bad', networks: 'not-a-network' });
    const page = await owner.get('/dashboard/settings');
    expect(page.body).toContain('is not a network in CIDR notation');
    expect(page.body).not.toMatch(/live_up_\w{40}/);
  });

  it('a member sees the keys without controls; a key made or revoked by form anyway is refused with 403', async () => {
    await owner.get('/dashboard/settings');
    await owner.post('/dashboard/settings/upload-keys', { name: 'Exact export job', networks: '' });
    const ownerPage = await owner.get('/dashboard/settings');
    const key = /id="new-upload-key">([^<]+)</.exec(ownerPage.body)![1];
    const id = /<tr data-id="(upk_\w+)">/.exec(ownerPage.body)![1];
    const page = await member.get('/dashboard/settings');
    expect(page.body).toContain('Exact export job');
    expect(page.body).not.toContain('/dashboard/settings/upload-keys');
    expect(page.body).toContain('Only the account&#39;s owners make and revoke upload keys.');
    expect((await member.post('/dashboard/settings/upload-keys', { name: 'Sneaky' })).status).toBe(403);
    expect((await member.post(`/dashboard/settings/upload-keys/${id}/revoke`, {})).status).toBe(403);
    expect((await t.api('GET', '/v2/imports', { auth: key })).status).toBe(200);
    expect((await owner.get('/dashboard/settings')).body).not.toContain('Sneaky');
  });
});
