// Another role for a person (issue 44, docs/dashboard.md "Roles"): an owner makes a member an
// owner and back on the People page; the role holds from the person's next request; nobody changes
// their own role; a member's form posted anyway is the 403 page and changes nothing; each change is
// in the trail (read back through the dashboard's Trail page and the admin API). The form in
// Chromium in three languages, a screenshot each (docs/screenshots/<lang>/people-roles.png).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { SHOTS, startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import type { FormClient } from './form-client.ts';
import { ownerAndMember } from './signed-in-people.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: FormClient;
let member: FormClient;
let ownerId: string;
let ownerEmail: string;
let memberId: string;
let memberWho: { email: string; password: string };

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const people = await ownerAndMember(t, acct.id);
  owner = people.owner.web;
  member = people.member.web;
  ownerId = people.owner.id;
  ownerEmail = people.owner.email;
  memberId = people.member.id;
  memberWho = people.member;
});
afterAll(() => t?.close());

const roleOf = async (id: string) => (await t.svc.container.users.list(acct.id)).find((u) => u.id === id)?.role;

describe('another role for a person', () => {
  it("a member's role form posted anyway is refused with 403 and changes nothing", async () => {
    expect((await member.get('/dashboard/people')).status).toBe(403);
    for (const [id, role] of [
      [ownerId, 'member'],
      [memberId, 'owner'],
    ]) {
      const res = await member.post(`/dashboard/people/${id}/role`, { role });
      expect(res.status).toBe(403);
      expect(res.body).toContain('Only the account&#39;s owners can do that');
    }
    expect(await roleOf(ownerId)).toBe('owner');
    expect(await roleOf(memberId)).toBe('member');
  });

  it('an owner cannot change their own role, nor set one that does not exist', async () => {
    const page = await owner.get('/dashboard/people');
    expect(page.body).toContain(`action="/dashboard/people/${memberId}/role"`);
    expect(page.body).not.toContain(`action="/dashboard/people/${ownerId}/role"`);
    await owner.post(`/dashboard/people/${ownerId}/role`, { role: 'member' });
    expect((await owner.get('/dashboard/people')).body).toContain('You cannot change your own role: another owner can.');
    await owner.post(`/dashboard/people/${memberId}/role`, { role: 'admin' });
    expect((await owner.get('/dashboard/people')).body).toContain('Choose owner or member.');
    expect(await roleOf(ownerId)).toBe('owner');
    expect(await roleOf(memberId)).toBe('member');
    expect((await owner.post('/dashboard/people/usr_nobody/role', { role: 'owner' })).status).toBe(404);
  });

  it('an owner makes the member an owner (who sees People at once) and a member again; both in the trail, through the dashboard and the admin API', async () => {
    expect((await owner.post(`/dashboard/people/${memberId}/role`, { role: 'owner' })).status).toBe(303);
    expect((await owner.get('/dashboard/people')).body).toContain(`${memberWho.email} is now owner.`);
    expect((await member.get('/dashboard/people')).status).toBe(200);
    expect((await owner.post(`/dashboard/people/${memberId}/role`, { role: 'member' })).status).toBe(303);
    expect((await member.get('/dashboard/people')).status).toBe(403);

    const admin = await t.api('GET', `/admin/accounts/${acct.id}/trail?action=user.role_changed`, { auth: 'admin' });
    expect(admin.body.trail.map((e: any) => [e.action, e.target, e.detail.from, e.detail.to, e.actor.kind, e.actor.id, e.mode])).toEqual([
      ['user.role_changed', memberWho.email, 'owner', 'member', 'person', ownerId, null],
      ['user.role_changed', memberWho.email, 'member', 'owner', 'person', ownerId, null],
    ]);
    const trailPage = await owner.get('/dashboard/trail?action=user.role_changed');
    expect(trailPage.status).toBe(200);
    expect(trailPage.body.match(/Role changed/g)?.length).toBeGreaterThanOrEqual(2);
    expect(trailPage.body).toContain(memberWho.email);
    expect(trailPage.body).toContain(ownerEmail);
  });

  it('with the database refusing the trail entry, the role change fails and the role stays (one transaction)', async () => {
    const name = `refuse_trail_${randomToken(8).toLowerCase()}`;
    await t.db.query(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'trail entry refused (test)'; end $$`);
    await t.db.query(`create trigger ${name} before insert on trail_entries for each row when (new.account_id = '${acct.id}') execute function ${name}()`);
    try {
      const res = await owner.post(`/dashboard/people/${memberId}/role`, { role: 'owner' });
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(await roleOf(memberId)).toBe('member');
      expect((await member.get('/dashboard/people')).status).toBe(403);
    } finally {
      await t.db.query(`drop trigger ${name} on trail_entries`);
      await t.db.query(`drop function ${name}()`);
    }
  });

  for (const [lang, locale, button, notice] of [
    ['en', 'en-GB', 'Change role', 'is now owner.'],
    ['nl', 'nl-NL', 'Rol wijzigen', 'is nu eigenaar.'],
    ['de', 'de-DE', 'Rolle ändern', 'ist jetzt Inhaber.'],
  ] as const) {
    it(`in Chromium (${locale}): the role form changes the role, the page says so`, async () => {
      const ctx = await t.browser.newContext({ locale, viewport: { width: 1280, height: 860 } });
      const p = await ctx.newPage();
      try {
        const colleague = await t.person(acct.id, await (await t.browser.newContext()).newPage(), `c-${lang}-${randomToken(6).toLowerCase()}@example.com`);
        const colleagueId = (await t.svc.container.users.list(acct.id)).find((u) => u.email === colleague.email)!.id;
        // the admin API's invite makes an owner: a member first, then the form makes them an owner
        await t.svc.container.users.setRole(acct.id, colleagueId, 'member');
        const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
        await t.signIn(p, who);
        await p.goto(`${t.url}/dashboard/people`);
        const form = p.locator(`form[action="/dashboard/people/${colleagueId}/role"]`);
        await form.locator('select').selectOption('owner');
        await form.getByRole('button', { name: button }).click();
        await p.locator('.flash').filter({ hasText: notice }).waitFor();
        expect(await roleOf(colleagueId)).toBe('owner');
        const dir = path.join(SHOTS, lang);
        fs.mkdirSync(dir, { recursive: true });
        await p.screenshot({ path: path.join(dir, 'people-roles.png'), fullPage: true });
      } finally {
        await ctx.close();
      }
    });
  }
});
