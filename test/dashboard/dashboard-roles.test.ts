// Owners and members (docs/dashboard.md, "Roles"): owners alone rotate keys and manage people; a
// member sees the keys as hints (prefix and last 4) only, has no rotate or people controls, and a
// form posted anyway gets the 403 page. Real service over real HTTP, and the member's settings page
// in Chromium (a screenshot is written for a person to look at).
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import type { FormClient } from './form-client.ts';
import { ownerAndMember } from './signed-in-people.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: FormClient;
let member: FormClient;
let ownerId: string;
let memberWho: { email: string; password: string };
const MEMBER_SHOT = path.join(os.tmpdir(), 'ii-member-settings.png');

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const people = await ownerAndMember(t, acct.id);
  owner = people.owner.web;
  member = people.member.web;
  ownerId = people.owner.id;
  memberWho = people.member;
});
afterAll(() => t?.close());

const liveKeyWorks = async (key: string) => (await t.api('GET', '/v2/customers', { auth: key })).status === 200;

describe('roles in the dashboard', () => {
  it("a member's settings show the keys as hints only, with no rotate control; a rotation posted anyway is refused with 403", async () => {
    const page = await member.get('/dashboard/settings');
    expect(page.status).toBe(200);
    expect(/id="hint-live">([^<]+)</.exec(page.body)?.[1]).toBe(`${acct.liveKey.slice(0, 9)}...${acct.liveKey.slice(-4)}`);
    expect(page.body).not.toContain(acct.liveKey);
    expect(page.body).not.toContain(acct.testKey);
    expect(page.body).not.toContain('/dashboard/settings/keys/');
    for (const mode of ['live', 'test']) {
      const res = await member.post(`/dashboard/settings/keys/${mode}`, { confirm: 'yes' });
      expect(res.status).toBe(403);
      expect(res.body).toContain('Only the account&#39;s owners can do that');
      expect(res.body).not.toMatch(/live_\w{40}|test_\w{40}/);
    }
    expect(await liveKeyWorks(acct.liveKey)).toBe(true); // nothing rotated
  });

  it('a member cannot see or manage people: the page, an invite and a removal are refused with 403', async () => {
    expect((await member.get('/dashboard/people')).status).toBe(403);
    await member.get('/dashboard/settings');
    expect((await member.post('/dashboard/people', { email: `x${randomToken(6).toLowerCase()}@example.com` })).status).toBe(403);
    expect((await member.post(`/dashboard/people/${ownerId}/remove`, { confirm: 'yes' })).status).toBe(403);
    const people = (await t.api('GET', `/admin/accounts/${acct.id}/users`, { auth: 'admin' })).body.users;
    expect(people).toHaveLength(2); // no one added, no one removed
  });

  it('an owner rotates a key and is shown the new one once', async () => {
    await owner.get('/dashboard/settings');
    expect((await owner.post('/dashboard/settings/keys/test', { confirm: 'yes' })).status).toBe(303);
    const shown = /id="new-key">(test_\w{40})</.exec((await owner.get('/dashboard/settings')).body)?.[1];
    expect(shown).toBeTruthy();
    expect(await liveKeyWorks(shown!)).toBe(true);
  });

  it("in Chromium: the member's settings page has no rotate button, and no People in the menu", async () => {
    const ctx = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await t.signIn(page, memberWho);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('button', { name: /Rotate/ }).count()).toBe(0);
    expect(await page.locator('form[action^="/dashboard/settings/keys/"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'People' }).count()).toBe(0);
    expect(await page.locator('#hint-live').textContent()).toMatch(/^live_\w{4}\.\.\.\w{4}$/);
    await page.screenshot({ path: MEMBER_SHOT, fullPage: true });
    await ctx.close();
  });
});
