// Upload keys in the dashboard (issue 44): an owner makes one on the settings page (shown once: a
// reload shows only that it was shown), sees it listed with its networks and last use, revokes it;
// a member sees the list without controls and a form posted anyway gets 403. The key's page: SSH
// keys that log in to SFTP as the key, added and removed by owners. Real service over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import type { FormClient } from './form-client.ts';
import { ownerAndMember } from './signed-in-people.ts';
import { sshKeygen } from '../sftp/sftp-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: FormClient;
let member: FormClient;
let ownerId: string;
let ownerEmail: string;

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const people = await ownerAndMember(t, acct.id);
  owner = people.owner.web;
  member = people.member.web;
  ownerId = people.owner.id;
  ownerEmail = people.owner.email;
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
    await expect
      .poll(async () => /class="upload-key-used">([^<]+)</.exec((await owner.get('/dashboard/settings')).body)?.[1])
      .toMatch(/ from 127\.0\.0\.1 \(http\)$/);

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
    await expect
      .poll(async () => /<ul id="key-uses">([\s\S]*?)<\/ul>/.exec((await owner.get('/dashboard/settings')).body)?.[1])
      .toMatch(/ from 127\.0\.0\.1 \(http\)/);
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
    expect(page.body).not.toContain('action="/dashboard/settings/upload-keys');
    expect(page.body).toContain('Only the account&#39;s owners make and revoke upload keys.');
    expect((await member.post('/dashboard/settings/upload-keys', { name: 'Sneaky' })).status).toBe(403);
    expect((await member.post(`/dashboard/settings/upload-keys/${id}/revoke`, {})).status).toBe(403);
    expect((await t.api('GET', '/v2/imports', { auth: key })).status).toBe(200);
    expect((await owner.get('/dashboard/settings')).body).not.toContain('Sneaky');
  });

  it("the key's page: an owner adds an SSH key (listed, in the trail) and removes it; a bad key is refused saying why; a member sees no form and gets 403", async () => {
    await owner.get('/dashboard/settings');
    await owner.post('/dashboard/settings/upload-keys', { name: 'Scanner SFTP', networks: '127.0.0.0/8' });
    const id = [
      ...(await owner.get('/dashboard/settings')).body.matchAll(
        /<tr data-id="(upk_\w+)">\s*<td[^>]*><a href="\/dashboard\/settings\/upload-keys\/(upk_\w+)">Scanner SFTP</g,
      ),
    ][0][1];
    const pagePath = `/dashboard/settings/upload-keys/${id}`;
    const first = await owner.get(pagePath);
    expect(first.status).toBe(200);
    expect(first.body).toContain('Scanner SFTP');
    expect(first.body).toContain('id="no-ssh-keys"');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-dash-ssh-'));
    try {
      const pair = await sshKeygen(dir);
      expect((await owner.post(`${pagePath}/ssh-keys`, { publicKey: pair.publicKey, comment: 'ricoh' })).status).toBe(303);
      const listed = await owner.get(pagePath);
      const fingerprint = /<code class="wrap">(SHA256:[^<]+)<\/code>/.exec(listed.body)?.[1];
      expect(fingerprint).toBeDefined();
      expect(listed.body).toContain(`The SSH key ${fingerprint} is added.`);
      const sshId = /<tr data-id="(ssk_\w+)">/.exec(listed.body)![1];
      expect((await t.api('GET', `/v2/account/upload-keys/${id}/ssh-keys`, { auth: acct.liveKey })).body.sshKeys.map((k: { id: string }) => k.id)).toEqual([
        sshId,
      ]);

      await owner.post(`${pagePath}/ssh-keys`, { publicKey: fs.readFileSync(pair.file, 'utf8') });
      expect((await owner.get(pagePath)).body).toContain('This is a private key: send the public key (the .pub file) instead');

      const seen = await member.get(pagePath);
      expect(seen.status).toBe(200);
      expect(seen.body).toContain(fingerprint!);
      expect(seen.body).not.toContain('id="ssh-key-form"');
      expect(seen.body).toContain('Only the account&#39;s owners add and remove SSH keys.');
      expect((await member.post(`${pagePath}/ssh-keys/${sshId}/remove`, {})).status).toBe(403);
      expect((await member.post(`${pagePath}/ssh-keys`, { publicKey: pair.publicKey })).status).toBe(403);

      expect((await owner.post(`${pagePath}/ssh-keys/${sshId}/remove`, {})).status).toBe(303);
      expect((await owner.get(pagePath)).body).toContain('id="no-ssh-keys"');
      const trail = await t.svc.container.trail.page({ accountId: acct.id, action: 'upload_key' }, { limit: 2 });
      expect(trail.items.map((e) => [e.action, e.actor.kind, e.actor.id, e.target])).toEqual([
        ['upload_key.ssh_key_removed', 'person', ownerId, id],
        ['upload_key.ssh_key_added', 'person', ownerId, id],
      ]);
      // read back on the dashboard's Trail page and through the admin API
      const trailPage = (await owner.get('/dashboard/trail?action=upload_key')).body;
      expect(trailPage).toContain('SSH key added to an upload key');
      expect(trailPage).toContain('SSH key removed from an upload key');
      const admin = await t.api('GET', `/admin/accounts/${acct.id}/trail?action=upload_key.ssh_key_added`, { auth: 'admin' });
      expect(admin.body.trail[0]).toMatchObject({ target: id, detail: { fingerprint, sshKeyId: sshId }, actor: { kind: 'person', id: ownerId } });
      // another account's key, or a revoked one: no page
      expect((await owner.get('/dashboard/settings/upload-keys/upk_nope')).status).toBe(404);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
