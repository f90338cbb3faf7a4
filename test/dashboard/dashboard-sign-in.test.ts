// Sign-in and its refusals in a real browser against the real service: CSRF, the cookie and the
// API key kept apart, another account's files, the throttle, inactivity, the Secure flag behind
// an HTTPS proxy, the optional TOTP second factor (codes computed here by RFC 6238, not by our code).
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { SHOTS, startDashboardApp, timeZoneReported, totp, type DashboardApp } from './dashboard-harness.ts';

const DASHBOARD_SRC = path.resolve(import.meta.dirname, '../../src/http/dashboard');
let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let ctx: BrowserContext;
let p: Page;
let pdf: Buffer;
const csrfOf = (page: Page) => page.evaluate(() => document.body.dataset.csrf!);

beforeAll(async () => {
  // behind a proxy on 127.0.0.1: X-Forwarded-Proto says whether the browser came over HTTPS,
  // X-Forwarded-For who it is (fastify trusts no forwarded protocol from a hop count alone)
  // the throttle's first wait is a minute here, so that a loaded machine's slow tries never outlast it
  t = await startDashboardApp({ trustProxy: ['127.0.0.1'], dashboardSignInCeiling: 8, dashboardSignInDelayMs: 60_000 });
  acct = await t.account();
  ctx = await t.browser.newContext();
  p = await ctx.newPage();
  await t.signIn(p, await t.person(acct.id, p));
  pdf = await makePdf('Invoice');
});
afterAll(() => t?.close());

describe('dashboard refusals', () => {
  it('refuses every state change without the CSRF token', async () => {
    // every POST route the dashboard's source declares, signed in, with a body that would work
    const source = fs
      .readdirSync(DASHBOARD_SRC)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => fs.readFileSync(path.join(DASHBOARD_SRC, f), 'utf8'))
      .join('\n');
    const routes = [...source.matchAll(/app\.(post|put|patch|delete)(?:<[^(]*>)?\('([^']+)'/g)].map((m) => [m[1], m[2].replace(/:(\w+)/g, 'x')]);
    expect(routes.length).toBeGreaterThanOrEqual(13);
    for (const [method, route] of routes) {
      const res = await p.request.fetch(`${t.url}${route}`, {
        method: method.toUpperCase(),
        form: { mode: 'test', confirm: 'yes', email: 'a@example.com', password: 'x', code: '123456' },
        maxRedirects: 0,
      });
      expect(res.status(), `${method} ${route}`).toBe(403);
    }
    expect((await t.api('GET', '/v2/customers', { auth: acct.liveKey })).status).toBe(200); // the key was not rotated
    const res = await p.request.post(`${t.url}/dashboard/mode`, { form: { mode: 'test' }, maxRedirects: 0 });
    expect(res.status()).toBe(403);
    const ok = await p.request.post(`${t.url}/dashboard/mode`, { form: { mode: 'live', _csrf: await csrfOf(p) }, maxRedirects: 0 });
    expect(ok.status()).toBe(303);
  });

  it('the session cookie never opens /v2, an API key never opens the dashboard', async () => {
    const cookie = (await ctx.cookies()).find((c) => c.name === 'ii_session')!;
    const v2 = await fetch(`${t.url}/v2/customers`, { headers: { cookie: `ii_session=${cookie.value}` } });
    expect(v2.status).toBe(401);
    const dash = await fetch(`${t.url}/dashboard/files`, { headers: { authorization: `Bearer ${acct.liveKey}` }, redirect: 'manual' });
    expect(dash.status).toBe(303);
    const post = await fetch(`${t.url}/dashboard/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.liveKey}`, 'content-type': 'application/pdf', 'x-filename': 'x.pdf' },
      body: new Uint8Array(pdf),
    });
    expect(post.status).toBe(403); // no CSRF token: refused before the session is even asked for
  });

  it("another account's import id answers 404 on every action", async () => {
    const stranger = await t.account();
    const imp = await t.api('POST', '/v2/imports', { auth: stranger.liveKey, body: { filename: 'theirs.pdf', content: pdf.toString('base64') } });
    expect(imp.status).toBe(202);
    const token = await csrfOf(p);
    const base = `${t.url}/dashboard/files/${imp.body.id}`;
    for (const url of [base, `${base}/download`]) expect((await p.request.get(url)).status(), url).toBe(404);
    for (const [action, form] of [
      ['retry', {}],
      ['assign', { invoice: 'F-1' }],
      ['discard', { confirm: 'yes' }],
    ] as const) {
      const res = await p.request.post(`${base}/${action}`, { form: { ...form, _csrf: token }, maxRedirects: 0 });
      expect(res.status(), action).toBe(404);
    }
    expect((await t.api('GET', `/v2/imports/${imp.body.id}`, { auth: stranger.liveKey })).body.status).not.toBe('attached');
  });
});

describe('sessions', () => {
  it('end after DASHBOARD_IDLE_MINUTES without a request', async () => {
    const q = await (await t.browser.newContext()).newPage();
    const who = await t.person(acct.id, q);
    await t.signIn(q, who);
    await t.svc.container.db.query(
      `update user_sessions set last_seen_at = now() - make_interval(mins => $1::int) where user_id = (select id from account_users where email = $2)`,
      [t.config.dashboardIdleMinutes + 1, who.email],
    );
    await q.goto(`${t.url}/dashboard/files`);
    await q.getByRole('heading', { name: 'Sign in' }).waitFor();
    await q.context().close();
  });

  it('the cookie is Secure when the browser came over HTTPS', async () => {
    const who = await t.person(acct.id, await ctx.newPage());
    const signIn = async (proto: string) => {
      const form = await fetch(`${t.url}/dashboard/sign-in`, { headers: { 'x-forwarded-proto': proto } });
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
      const csrfCookie = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const res = await fetch(`${t.url}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'x-forwarded-proto': proto, cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, email: who.email, password: who.password }),
      });
      expect(res.status).toBe(303);
      return res.headers.getSetCookie().find((c) => c.startsWith('ii_session='))!;
    };
    const https = await signIn('https');
    expect(https).toMatch(/; Secure/i);
    expect(https).toMatch(/; HttpOnly/i);
    expect(https).toMatch(/; SameSite=Lax/i);
    expect(await signIn('http')).not.toMatch(/; Secure/i);
  });
});

describe('two-step sign-in (TOTP)', () => {
  it('is turned on with a code from the app; sign-in then asks for a code, once each; a new invite turns it off', async () => {
    const q = await (await t.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const who = await t.person(acct.id, q);
    await t.signIn(q, who);
    await q.goto(`${t.url}/dashboard/settings`);
    await q.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    const secret = (await q.locator('#totp-secret').textContent())!;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await q.locator('.qr svg').count()).toBe(1);
    await q.locator('section[aria-labelledby="second-factor-title"]').screenshot({ path: path.join(SHOTS, 'dashboard-two-step.png') });
    await q.getByLabel('Code from the app').fill('000000' === totp(secret) ? '111111' : '000000');
    await q.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await q.getByText('The code does not match').waitFor();
    const enableAt = Date.now();
    await q.getByLabel('Code from the app').fill(totp(secret, enableAt));
    await q.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await q.getByText('Two-step sign-in is on.').waitFor();

    await q.getByRole('button', { name: /Sign out/ }).click();
    const password = async () => {
      await q.getByLabel('E-mail address').fill(who.email);
      await q.getByLabel('Password').fill(who.password);
      await q.getByRole('button', { name: 'Sign in' }).click();
      await q.getByLabel('Code from your authenticator app').waitFor();
    };
    await password();
    expect(
      await q
        .context()
        .cookies()
        .then((cs) => cs.some((c) => c.name === 'ii_session')),
    ).toBe(false);
    // the password alone opens nothing
    expect((await q.request.get(`${t.url}/dashboard/files`, { maxRedirects: 0 })).status()).toBe(303);
    // the code that turned it on was used already
    await q.getByLabel('Code from your authenticator app').fill(totp(secret, enableAt));
    await q.getByRole('button', { name: 'Sign in' }).click();
    await q.getByText('The code is not right, or was used already').waitFor();
    const next = totp(secret, enableAt + 30_000); // the app's next code: within the accepted drift
    await q.getByLabel('Code from your authenticator app').fill(next);
    await q.getByRole('button', { name: 'Sign in' }).click();
    await q.getByRole('heading', { name: 'Overview' }).waitFor();
    await timeZoneReported(q);
    expect(await q.request.get(`${t.url}/dashboard/settings`).then((r) => r.text())).toContain('On: signing in asks for a code');

    // a new invite (the password reset for a lost phone) turns the second factor off
    await q.context().clearCookies();
    const again = await t.person(acct.id, q, who.email);
    await t.signIn(q, again);
    await q.goto(`${t.url}/dashboard/settings`);
    await q.getByText('Off: signing in needs only your password').waitFor();
    await q.context().close();
  });
});

describe('sign-in throttle', () => {
  const from = async (address: string) => (await t.browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } })).newPage();
  const attempt = async (q: Page, who: { email: string; password: string }) => {
    await q.goto(`${t.url}/dashboard/sign-in`);
    await q.getByLabel('E-mail address').fill(who.email);
    await q.getByLabel('Password').fill(who.password);
    const [res] = await Promise.all([
      q.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in') && r.request().method() === 'POST'),
      q.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    return res.status();
  };

  it('wrong passwords from a stranger’s address never keep the owner out: the owner signs in from their own address', async () => {
    const stranger = await from('198.51.100.10');
    const target = await t.person(acct.id, stranger);
    const statuses: number[] = [];
    for (let i = 0; i < t.config.dashboardSignInAttempts + 2; i++) statuses.push(await attempt(stranger, { ...target, password: 'wrong password!' }));
    // the free failures, then the stranger's pair waits (429) instead of trying
    expect(statuses).toEqual([...Array(t.config.dashboardSignInAttempts).fill(401), 429, 429]);
    await stranger.getByText('Too many failed sign-ins').waitFor();
    // even the right password waits at the stranger's address
    expect(await attempt(stranger, target)).toBe(429);
    const owner = await from('198.51.100.11');
    expect(await attempt(owner, target)).toBe(303);
    await owner.getByRole('heading', { name: 'Overview' }).waitFor();
    // the counts live in Redis, where every API node reads them
    expect(await t.svc.container.redis.exists(`${t.svc.container.config.redisPrefix}:signin:pair:198.51.100.10:${target.email}`)).toBe(1);
  });

  it('an address that fails on many e-mails waits past the ceiling, whatever e-mail it tries next; other addresses do not', async () => {
    const q = await from('198.51.100.20');
    const [a, b] = [await t.person(acct.id, q), await t.person(acct.id, q)];
    for (let i = 0; i < t.config.dashboardSignInCeiling; i++)
      expect(await attempt(q, { email: `nobody${i}@example.com`, password: 'wrong password!' })).toBe(401);
    expect(await attempt(q, a)).toBe(429);
    const elsewhere = await from('198.51.100.21');
    expect(await attempt(elsewhere, b)).toBe(303);
  });
});
