// People: a person changes their own password (the current one proves it; their other sessions
// end); ten recovery codes come with two-step sign-in, shown once, each signing in once.
// Real service, real Chromium; TOTP codes computed here by RFC 6238, not by our code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardApp, timeZoneReported, totp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
});
afterAll(() => t?.close());

describe('change password', () => {
  it('needs the current password; the new one signs in, the old one no longer; other browsers are signed out', async () => {
    const a = await (await t.browser.newContext()).newPage();
    const b = await (await t.browser.newContext()).newPage();
    const who = await t.person(acct.id, a);
    await t.signIn(a, who);
    await t.signIn(b, who);
    const change = async (current: string, next: string, confirm = next) => {
      await a.goto(`${t.url}/dashboard/settings`);
      await a.getByLabel('Current password').fill(current);
      await a.getByLabel('New password', { exact: true }).fill(next);
      await a.getByLabel('Repeat the new password').fill(confirm);
      // the server's own check, not only the browser's minlength
      await a.locator('input[minlength]').evaluateAll((inputs) => inputs.forEach((i) => i.removeAttribute('minlength')));
      const [res] = await Promise.all([
        a.waitForResponse((r) => r.url().endsWith('/dashboard/settings/password')),
        a.getByRole('button', { name: 'Change password' }).click(),
      ]);
      expect(res.status()).toBe(303);
      return (await a.locator('.flash').textContent())?.trim();
    };
    expect(await change('not my password', 'a brand new password')).toBe('The current password is not right.');
    expect(await change(who.password, 'a brand new password', 'a different one!!')).toBe('The two passwords differ.');
    expect(await change(who.password, 'short')).toBe('The password must be 10 to 200 characters.');
    expect(await change(who.password, 'a brand new password')).toBe('Your password is changed. Other browsers are signed out.');
    // this browser stays signed in, the other one is out
    expect((await a.request.get(`${t.url}/dashboard/files`, { maxRedirects: 0 })).status()).toBe(200);
    expect((await b.request.get(`${t.url}/dashboard/files`, { maxRedirects: 0 })).status()).toBe(303);
    const c = await (await t.browser.newContext()).newPage();
    await c.goto(`${t.url}/dashboard/sign-in`);
    await c.getByLabel('E-mail address').fill(who.email);
    await c.getByLabel('Password').fill(who.password);
    await c.getByRole('button', { name: 'Sign in' }).click();
    await c.getByText('The e-mail address or the password is not right.').waitFor();
    await t.signIn(c, { email: who.email, password: 'a brand new password' });
  });
});

describe('recovery codes', () => {
  it('ten come with two-step sign-in, are shown once, and each signs in once instead of a code', async () => {
    const q = await (await t.browser.newContext()).newPage();
    const who = await t.person(acct.id, q);
    await t.signIn(q, who);
    await q.goto(`${t.url}/dashboard/settings`);
    await q.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    const secret = (await q.locator('#totp-secret').textContent())!;
    await q.getByLabel('Code from the app').fill(totp(secret));
    await q.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await q.locator('#recovery-codes').waitFor();
    const codes = await q.locator('#recovery-codes code').allTextContents();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    await q.reload();
    expect(await q.locator('#recovery-codes').count()).toBe(0);
    expect(await q.content()).not.toContain(codes[0]);
    await q.locator('#already-shown').waitFor();
    expect(await q.locator('#codes-left').textContent()).toBe('10 recovery codes left.');

    const viaCode = async (code: string) => {
      await q.context().clearCookies();
      await q.goto(`${t.url}/dashboard/sign-in`);
      await q.getByLabel('E-mail address').fill(who.email);
      await q.getByLabel('Password').fill(who.password);
      await q.getByRole('button', { name: 'Sign in' }).click();
      await q.getByLabel('or a recovery code').fill(code);
      const [res] = await Promise.all([
        q.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in/code') && r.request().method() === 'POST'),
        q.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      return res.status();
    };
    expect(await viaCode(codes[3].toUpperCase().replace('-', ' '))).toBe(303); // typed as people type it
    await q.getByRole('heading', { name: 'Overview' }).waitFor();
    await timeZoneReported(q);
    await q.goto(`${t.url}/dashboard/settings`);
    expect(await q.locator('#codes-left').textContent()).toBe('9 recovery codes left.');
    expect(await viaCode(codes[3])).toBe(401); // once only
    expect(await viaCode('abcde-fghjk')).toBe(401);
    expect(await viaCode(codes[7])).toBe(303);
  });
});

describe("an account's people", () => {
  it('an owner invites a colleague (the link shown once) and removes them; a member sees no People page (403)', async () => {
    const owner = await (await t.browser.newContext()).newPage();
    await t.signIn(owner, await t.person(acct.id, owner)); // invited by the operator: an owner
    await owner.getByRole('link', { name: 'People' }).click();
    await owner.getByLabel('E-mail address').fill('colleague@example.com');
    const [res] = await Promise.all([
      owner.waitForResponse((r) => r.url().endsWith('/dashboard/people') && r.request().method() === 'POST'),
      owner.getByRole('button', { name: 'Invite', exact: true }).click(),
    ]);
    expect(res.status()).toBe(303);
    const link = (await owner.locator('#invite-link').textContent())!;
    expect(link).toMatch(/\/dashboard\/invite\/\w+$/);
    await owner.reload();
    expect(await owner.locator('#invite-link').count()).toBe(0);
    await owner.locator('#already-shown').waitFor();
    // inviting the same address again does not reset their password into the owner's hands
    await owner.getByLabel('E-mail address').fill('colleague@example.com');
    await owner.getByRole('button', { name: 'Invite', exact: true }).click();
    await owner.getByText('colleague@example.com has access already.').waitFor();

    const colleague = await (await t.browser.newContext()).newPage();
    await colleague.goto(link.replace(/^https?:\/\/[^/]+/, t.url));
    await colleague.getByLabel('New password').fill('colleague password');
    await colleague.getByLabel('Repeat the password').fill('colleague password');
    await colleague.getByRole('button', { name: 'Set password' }).click();
    await t.signIn(colleague, { email: 'colleague@example.com', password: 'colleague password' });
    expect(await colleague.getByRole('link', { name: 'People' }).count()).toBe(0);
    expect((await colleague.request.get(`${t.url}/dashboard/people`)).status()).toBe(403);
    const csrf = await colleague.evaluate(() => document.body.dataset.csrf!);
    expect((await colleague.request.post(`${t.url}/dashboard/people`, { form: { _csrf: csrf, email: 'sneaky@example.com' }, maxRedirects: 0 })).status()).toBe(
      403,
    );

    await owner.goto(`${t.url}/dashboard/people`);
    const row = owner.locator('tr', { hasText: 'colleague@example.com' });
    expect(await row.innerText()).toContain('member');
    await row.getByLabel('Yes, remove colleague@example.com').check();
    await row.getByRole('button', { name: 'Remove' }).click();
    await owner.getByText('colleague@example.com no longer has access.').waitFor();
    expect((await colleague.request.get(`${t.url}/dashboard/files`, { maxRedirects: 0 })).status()).toBe(303); // their session ended
    expect(await owner.locator('tr', { hasText: 'colleague@example.com' }).count()).toBe(0);
  });
});
