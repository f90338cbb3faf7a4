// Who may send e-mail, in the dashboard's settings, and the release of held files, in Chromium in
// English, Dutch and German (screenshots into docs/screenshots/<lang>/, checked by eye). A held
// file is made by the intake port as the mail channel makes one (its sender not allowed).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeReason } from '../../src/domain/intake-reasons.ts';
import type { SenderVerdict } from '../../src/domain/sender-verdict.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { SHOTS, startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
}, 60_000);
afterAll(() => t?.close());

const scope = () => ({ accountId: acct.id, mode: 'live' as const });
const verdict = (from: string): SenderVerdict => ({
  source: 'imap-header',
  from,
  spf: 'pass',
  spfDomain: from.split('@')[1],
  dkimPassDomains: [from.split('@')[1]],
  dmarc: 'pass',
  arc: 'none',
  authenticated: true,
});

/** A file from a sender the policy does not allow, as the mail pipeline hands it over. */
async function heldFile(from: string, filename: string): Promise<string> {
  const r = await t.svc.container.intake.receive({
    scope: scope(),
    channel: 'mail',
    sender: from,
    filename,
    bytes: await makePdf(filename),
    senderVerdict: verdict(from),
    hold: intakeReason('held_sender_not_listed', { sender: from }),
  });
  expect(r.status).toBe('held');
  return r.id;
}

const LANGS = [
  ['en', 'en-GB', 'Senders saved'],
  ['nl', 'nl-NL', 'opgeslagen'],
  ['de', 'de-DE', 'gespeichert'],
] as const;

describe('senders and held files in the dashboard', () => {
  for (const [lang, locale, saved] of LANGS) {
    it(`an owner lists senders and releases (adding the sender) or discards held files, in ${locale}`, async () => {
      const ctx = await t.browser.newContext({ locale, viewport: { width: 1280, height: 860 } });
      const p = await ctx.newPage();
      const owner = await t.person(acct.id, await (await t.browser.newContext()).newPage());
      await t.signIn(p, owner);

      await p.goto(`${t.url}/dashboard/settings`);
      await p.locator('#policy-listed').check();
      await p.locator('#senders-list').fill('Billing@Supplier.example\n@partner.example');
      await p.locator('form[action="/dashboard/settings/senders"] button[type=submit]').click();
      await p.waitForURL(/\/dashboard\/settings/);
      await expect.poll(() => p.locator('body').innerText()).toContain(lang === 'en' ? 'The list of senders is saved.' : saved);
      expect(await p.locator('#senders-list').inputValue()).toBe('@partner.example\nbilling@supplier.example');
      expect((await t.api('GET', '/v2/account/senders', { auth: acct.liveKey })).body).toMatchObject({
        policy: 'listed',
        senders: ['@partner.example', 'billing@supplier.example'],
      });
      await p.locator('#senders-title').scrollIntoViewIfNeeded();
      await p.screenshot({ path: path.join(SHOTS, lang, 'settings-senders.png'), fullPage: true });

      // a bad entry: the list is not saved, the person is told which entry
      await p.locator('#senders-list').fill('supplier.example');
      await p.locator('form[action="/dashboard/settings/senders"] button[type=submit]').click();
      await expect.poll(() => p.locator('body').innerText()).toContain('"supplier.example" is neither an address');

      const keep = await heldFile(`ap-${lang}@newpartner.example`, `held-${lang}.pdf`);
      const spam = await heldFile(`spam-${lang}@stranger.example`, `spam-${lang}.pdf`);
      await p.goto(`${t.url}/dashboard/files/${keep}`);
      expect(await p.locator('#file-status').getAttribute('class')).toContain('status-held');
      expect(await p.locator('#sender-check').innerText()).toMatch(/DMARC pass/);
      await p.screenshot({ path: path.join(SHOTS, lang, 'file-held.png'), fullPage: true });
      await p.locator('#release-add').check();
      await p.locator(`form[action="/dashboard/files/${keep}/release"] button[type=submit]`).click();
      await p.waitForURL(new RegExp(`/dashboard/files/${keep}`));
      await expect.poll(async () => (await t.api('GET', `/v2/imports/${keep}`, { auth: acct.liveKey })).body.status).not.toBe('held');
      expect((await t.api('GET', '/v2/account/senders', { auth: acct.liveKey })).body.senders).toContain(`ap-${lang}@newpartner.example`);

      await p.goto(`${t.url}/dashboard/files/${spam}`);
      await p.locator('#discard-confirm').check();
      await p.locator(`form[action="/dashboard/files/${spam}/discard"] button[type=submit]`).click();
      await p.waitForURL(/\/dashboard\/files$/);
      expect((await t.api('GET', `/v2/imports/${spam}`, { auth: acct.liveKey })).status).toBe(410);
      await ctx.close();
    });
  }

  it('a member sees the list but cannot change it nor release a held file', async () => {
    const ctx = await t.browser.newContext();
    const p = await ctx.newPage();
    const member = await t.person(acct.id, await (await t.browser.newContext()).newPage());
    await t.db.query(`update account_users set role = 'member' where email = $1`, [member.email]);
    await t.signIn(p, member);
    await p.goto(`${t.url}/dashboard/settings`);
    expect(await p.locator('form[action="/dashboard/settings/senders"]').count()).toBe(0);
    expect(await p.locator('#senders-policy').innerText()).toBe('Listed senders only');
    const held = await heldFile('x@stranger.example', 'member-held.pdf');
    await p.goto(`${t.url}/dashboard/files/${held}`);
    expect(await p.locator(`form[action="/dashboard/files/${held}/release"]`).count()).toBe(0);
    await ctx.close();
  });
});
