// The trail in the dashboard (issue 44): changes a person makes in the dashboard (key rotation,
// people invited and removed, a file discarded) are recorded with that person as the actor and
// read back through the admin API; owners read the trail page in English, Dutch and German
// (filtered, CSV), members get the 403 page. Real service, real HTTP, real Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formClient } from './form-client.ts';
import path from 'node:path';
import { SHOTS, startDashboardApp, totp, type DashboardApp } from './dashboard-harness.ts';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import { makePdf } from '../helpers/fixtures.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let owner: { email: string; password: string };

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  owner = await t.person(acct.id, await (await t.browser.newContext()).newPage());
}, 120_000);
afterAll(() => t?.close());

describe('the trail in the dashboard', () => {
  it('records what a person changes in the dashboard, with that person as the actor', async () => {
    const f = formClient(t.url);
    expect((await f.signIn(owner)).status).toBe(303);
    await f.get('/dashboard/settings');
    expect((await f.post('/dashboard/settings/keys/live', { confirm: 'yes' })).status).toBe(303);
    await f.get('/dashboard/people');
    expect((await f.post('/dashboard/people', { email: 'helper@example.com' })).status).toBe(303);
    const people = await t.api('GET', `/admin/accounts/${acct.id}/users`, { auth: 'admin' });
    const helper = people.body.users.find((u: { email: string }) => u.email === 'helper@example.com');
    await f.get('/dashboard/people');
    expect((await f.post(`/dashboard/people/${helper.id}/remove`, { confirm: 'yes' })).status).toBe(303);
    const file = await t.api('POST', '/v2/imports', {
      auth: acct.testKey,
      body: { filename: 'nothing-matches.pdf', content: (await makePdf('x')).toString('base64') },
    });
    await f.post('/dashboard/mode', { mode: 'test' });
    await f.get(`/dashboard/files/${file.body.id}`);
    expect((await f.post(`/dashboard/files/${file.body.id}/discard`, { confirm: 'yes' })).status).toBe(303);

    const trail = (await t.api('GET', `/admin/accounts/${acct.id}/trail?actor=person`, { auth: 'admin' })).body.trail;
    expect(trail.map((e: { action: string; mode: string | null; target: string }) => [e.action, e.mode, e.target])).toEqual([
      ['import.discarded', 'test', file.body.id],
      ['user.removed', null, 'helper@example.com'],
      ['user.invited', null, 'helper@example.com'],
      ['api_key.rotated', 'live', 'live'],
    ]);
    for (const e of trail) expect(e.actor).toMatchObject({ kind: 'person', label: owner.email });
    // a filter typed into the address bar wrong: a 400 page, never a 500
    for (const q of ['since=nonsense', 'actor=robot', 'from=trl_nosuchentry']) expect((await f.get(`/dashboard/trail?${q}`)).status, q).toBe(400);
    expect((await f.get('/dashboard/trail.csv?until=2026-13-01')).status).toBe(400);
    expect(trail[0].address).toMatch(/127\.0\.0\.1/);
    // the operator's invite of the owner is in the trail too, and the test key sees the account-wide entries
    const seen = (await t.api('GET', '/v2/account/trail', { auth: acct.testKey })).body.trail.map((e: { action: string }) => e.action);
    expect(seen).toEqual(['import.discarded', 'user.removed', 'user.invited', 'user.invited']);
  });

  for (const [locale, heading, invited, family] of [
    ['en-GB', 'Trail', 'Person invited', 'People'],
    ['nl-NL', 'Logboek', 'Persoon uitgenodigd', 'Personen'],
    ['de-DE', 'Protokoll', 'Person eingeladen', 'Personen'],
  ] as const) {
    it(`owners read the trail page in ${locale}: filtered by kind, as CSV`, async () => {
      const p = await (await t.browser.newContext({ locale, timezoneId: 'Europe/Amsterdam', viewport: { width: 1280, height: 860 } })).newPage();
      await t.signIn(p, owner);
      await p.locator('nav a[href="/dashboard/trail"]').click();
      await p.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await expect.poll(() => p.locator('table.trail tbody tr').count()).toBeGreaterThanOrEqual(3);
      expect(await p.locator('table.trail').textContent()).toContain(invited);
      expect(await p.locator('table.trail').textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T/); // no ISO timestamps for people
      await p.screenshot({ path: path.join(SHOTS, locale.slice(0, 2), 'trail-changes.png'), fullPage: true });
      await p.locator('#trail-action').selectOption({ label: family });
      await p.locator('form.trail-filter button[type=submit]').click();
      await p.waitForURL(/action=user/);
      const actions = await p.locator('table.trail tbody tr td:nth-child(2)').allTextContents();
      expect(actions.length).toBeGreaterThanOrEqual(2);
      for (const a of actions) expect(a).toMatch(/invit|uitgenodigd|eingeladen|remov|verwijderd|entfernt/i);
      const csv = await p.request.get(`${t.url}${await p.locator('#trail-csv').getAttribute('href')}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
      const lines = (await csv.text()).trim().split('\r\n');
      expect(lines[0]).toBe('at,mode,actor_kind,actor,address,action,target,detail');
      expect(lines.slice(1).every((l) => /,user\.(invited|removed),/.test(l))).toBe(true);
    });
  }

  it('two-step sign-in on and off, a sender list saved and a held file released: each by the person, from the dashboard', async () => {
    const other = await t.account();
    const who = await t.person(other.id, await (await t.browser.newContext()).newPage());
    const f = formClient(t.url);
    expect((await f.signIn(who)).status).toBe(303);
    await f.get('/dashboard/settings');
    await f.post('/dashboard/settings/second-factor/setup');
    const page = String((await f.get('/dashboard/settings')).body);
    const secret = /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(page)![1];
    expect((await f.post('/dashboard/settings/second-factor', { secret, code: totp(secret) })).status).toBe(303);
    await f.get('/dashboard/settings');
    // a code of the next step: each code is accepted once
    expect((await f.post('/dashboard/settings/second-factor/off', { code: totp(secret, Date.now() + 30_000) })).status).toBe(303);
    await f.get('/dashboard/settings');
    expect((await f.post('/dashboard/settings/senders', { policy: 'listed', senders: '@known.example' })).status).toBe(303);
    const held = await t.svc.container.intake.receive({
      scope: { accountId: other.id, mode: 'live' },
      channel: 'mail',
      sender: 'ap@new.example',
      filename: 'held.pdf',
      bytes: await makePdf('held'),
      hold: intakeReason('held_sender_not_listed', { sender: 'ap@new.example' }),
    });
    expect(held.status).toBe('held');
    await f.get(`/dashboard/files/${held.id}`);
    expect((await f.post(`/dashboard/files/${held.id}/release`, { addSender: 'yes' })).status).toBe(303);
    const trail = (await t.api('GET', `/admin/accounts/${other.id}/trail?actor=person`, { auth: 'admin' })).body.trail;
    expect(trail.map((e: { action: string; mode: string | null }) => [e.action, e.mode])).toEqual([
      ['import.released', 'live'],
      ['senders.changed', 'live'],
      ['second_factor.disabled', null],
      ['second_factor.enabled', null],
    ]);
    expect(trail[0]).toMatchObject({ target: held.id, detail: { sender: 'ap@new.example', addSender: true }, actor: { label: who.email } });
    expect(trail[1].detail).toEqual({ policy: 'listed', senders: ['@known.example'] });
    expect(JSON.stringify(trail)).not.toContain(secret);
  });

  it('a member gets the 403 page and no trail link', async () => {
    const f = formClient(t.url);
    const page = await (await t.browser.newContext()).newPage();
    const member = await t.person(acct.id, page);
    await t.db.query("update account_users set role = 'member' where lower(email) = lower($1)", [member.email]);
    expect((await f.signIn(member)).status).toBe(303);
    const res = await f.get('/dashboard/trail');
    expect(res.status).toBe(403);
    expect(String((await f.get('/dashboard')).body)).not.toContain('/dashboard/trail');
    expect((await f.get('/dashboard/trail.csv')).status).toBe(403);
  });
});
