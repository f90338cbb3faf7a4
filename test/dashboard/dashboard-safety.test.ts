// Safe to reload: every form answers 303 to a page, a secret is shown on one view only (a reload
// of the page after a key rotation keeps the new key valid), a form's address opened with GET
// leads to its page, messages never come from the address, and no secret of a whole dashboard
// session reaches the log. Real service, real Chromium.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

const DASHBOARD_SRC = path.resolve(import.meta.dirname, '../../src/http/dashboard');
const logs: string[] = [];
let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let ctx: BrowserContext;
let p: Page;
const secrets = new Map<string, string>();
const keep = (what: string, value: string | null | undefined) => {
  expect(value?.length ?? 0, what).toBeGreaterThanOrEqual(16);
  secrets.set(`${what} ${secrets.size}`, value!);
};
const keepCookies = async () => {
  for (const c of await ctx.cookies()) if (c.name === 'ii_session' || c.name === 'ii_csrf') keep(`cookie ${c.name}`, c.value);
  keep('CSRF form token', await p.evaluate(() => document.body.dataset.csrf ?? null));
};

beforeAll(async () => {
  t = await startDashboardApp({}, { logs });
  acct = await t.account();
  keep('live key', acct.liveKey);
  keep('test key', acct.testKey);
  ctx = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
  p = await ctx.newPage();
  // the invite as the operator makes it; its token is a secret too
  const email = 'safety@example.com';
  const invite = await t.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email } });
  keep('invite token', invite.body.inviteUrl.split('/').pop());
  await p.goto(invite.body.inviteUrl.replace(/^https?:\/\/[^/]+/, t.url));
  await p.getByLabel('New password').fill('a long enough password');
  await p.getByLabel('Repeat the password').fill('a long enough password');
  await p.getByRole('button', { name: 'Set password' }).click();
  await p.getByText('Your password is set').waitFor();
  expect(new URL(p.url()).pathname).toBe('/dashboard/sign-in'); // a reload does not post the password again
  await t.signIn(p, { email, password: 'a long enough password' });
  await keepCookies();
});
afterAll(() => t?.close());

describe('post/redirect/get', () => {
  it('a reload after rotating a key keeps the new key valid and says it was shown', async () => {
    await p.goto(`${t.url}/dashboard/settings`);
    await p.getByLabel('The current test key stops working at once').check();
    const [post] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/dashboard/settings/keys/test') && r.request().method() === 'POST'),
      p.getByRole('button', { name: 'Rotate the test key' }).click(),
    ]);
    expect(post.status()).toBe(303);
    const fresh = (await p.locator('#new-key').textContent())!;
    keep('rotated key', fresh);
    expect((await t.api('GET', '/v2/customers', { auth: acct.testKey })).status).toBe(401);
    expect(new URL(p.url()).pathname).toBe('/dashboard/settings');
    expect((await t.api('GET', '/v2/customers', { auth: fresh })).status).toBe(200);

    await p.reload();
    await p.locator('#already-shown').waitFor();
    expect(await p.locator('#new-key').count()).toBe(0);
    expect(await p.content()).not.toContain(fresh);
    expect((await t.api('GET', '/v2/customers', { auth: fresh })).status).toBe(200); // not rotated again
    await p.reload();
    expect(await p.locator('#already-shown').count()).toBe(0); // the note, too, is for one view
    expect((await t.api('GET', '/v2/customers', { auth: fresh })).status).toBe(200);
  });

  it('the key of a two-step set-up is shown on one view; a wrong code comes back by redirect', async () => {
    await p.goto(`${t.url}/dashboard/settings`);
    await p.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    const secret = (await p.locator('#totp-secret').textContent())!;
    keep('TOTP key', secret);
    await p.getByLabel('Code from the app').fill('000000');
    const [post] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/dashboard/settings/second-factor') && r.request().method() === 'POST'),
      p.getByRole('button', { name: 'Turn on two-step sign-in' }).click(),
    ]);
    expect(post.status()).toBe(303);
    await p.getByText('The code does not match').waitFor();
    expect(await p.locator('#totp-secret').textContent()).toBe(secret); // the same key, to try again
    await p.reload();
    await p.locator('#already-shown').waitFor();
    expect(await p.content()).not.toContain(secret);
  });

  it('every form address opened with GET leads to its page', async () => {
    const source = fs
      .readdirSync(DASHBOARD_SRC)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => fs.readFileSync(path.join(DASHBOARD_SRC, f), 'utf8'))
      .join('\n');
    const upload = await t.api('POST', '/v2/imports', {
      auth: acct.liveKey,
      body: { filename: 'nothing-yet.pdf', content: (await makePdf('x')).toString('base64') },
    });
    const key = await t.api('POST', '/v2/account/upload-keys', { auth: acct.liveKey, body: { Name: 'GET of its forms' } });
    const routes = [...new Set([...source.matchAll(/app\.post(?:<[^(]*>)?\('([^']+)'/g)].map((m) => m[1]))];
    expect(routes.length).toBeGreaterThanOrEqual(13);
    for (const route of routes) {
      // an upload key's forms are on its page: their :id is an upload key's
      const id = route.startsWith('/dashboard/settings/upload-keys/:id') ? key.body.id : upload.body.id;
      const url = route.replace(':id', id).replace(':mode', 'live').replace(':token', 'no-such-invite');
      const res = await p.goto(`${t.url}${url}`);
      const body = await p.locator('body').innerText();
      expect(res!.headers()['content-type'], url).toMatch(/^text\/html/);
      expect(body, url).not.toMatch(/"status":|Method Not Allowed/);
      if (!url.includes('no-such-invite')) expect(res!.status(), url).toBe(200);
    }
  });

  it('a message in the address is never shown; the flash of an action shows once', async () => {
    const phishing = 'Your account is suspended. Call +31 20 555 0100';
    const imp = await t.api('POST', '/v2/imports', { auth: acct.liveKey, body: { filename: 'orphan.pdf', content: (await makePdf('y')).toString('base64') } });
    const q = new URLSearchParams({ error: phishing, done: phishing, notice: phishing, discarded: '1' });
    for (const page of [
      '/dashboard',
      '/dashboard/files',
      `/dashboard/files/${imp.body.id}`,
      '/dashboard/settings',
      '/dashboard/invoices',
      '/dashboard/sign-in',
    ]) {
      await p.goto(`${t.url}${page}?${q}`);
      expect(await p.locator('body').innerText(), page).not.toContain('suspended');
      expect(await p.locator('.flash, [role=alert]').count(), page).toBe(0);
    }
    await p.goto(`${t.url}/dashboard/files/${imp.body.id}`);
    await p.getByLabel('Assign to the invoice with number').fill('NO-SUCH-1');
    await p.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => p.locator('.flash').count()).toBe(1);
    expect(new URL(p.url()).search).toBe('');
    await p.reload();
    expect(await p.locator('.flash').count()).toBe(0);
  });
});

describe('the log of a whole dashboard session', () => {
  it('holds none of its secrets', async () => {
    await p.goto(`${t.url}/dashboard/files`);
    await keepCookies();
    await p.getByRole('button', { name: /Sign out/ }).click();
    await p.getByText('You are signed out.').waitFor();
    const text = logs.join('');
    expect(logs.length).toBeGreaterThan(50);
    expect(text).toContain('/dashboard/invite/[redacted]'); // the request lines were written, masked
    expect(text).toContain('/dashboard/settings/keys/test');
    for (const [what, value] of secrets) expect(text.includes(value), what).toBe(false);
  });
});
