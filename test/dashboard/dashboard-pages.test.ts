// Pages around the dashboard: errors as pages in its layout and the reader's language for
// browsers (JSON for the API), a styled / that works on a phone, /favicon.ico, Bull Board
// without any request to the internet, and the live list saying when it lost its connection and
// when it is back.
import net from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
const pageIn = async (locale: string, viewport = { width: 1280, height: 800 }) => (await t.browser.newContext({ locale, viewport })).newPage();

beforeAll(async () => {
  t = await startDashboardApp();
});
afterAll(() => t?.close());

describe('error pages', () => {
  it('a browser gets a page in the layout and its language; the API gets JSON', async () => {
    for (const [locale, title] of [
      ['en-GB', 'Not found'],
      ['nl-NL', 'Niet gevonden'],
      ['de-DE', 'Nicht gefunden'],
    ]) {
      const q = await pageIn(locale);
      for (const url of ['/no-such-page', '/dashboard/nothing-here']) {
        const res = await q.goto(`${t.url}${url}`);
        expect(res!.status(), url).toBe(404);
        expect(res!.headers()['content-type'], url).toMatch(/^text\/html/);
        await q.getByRole('heading', { name: title }).waitFor();
        expect(await q.locator('link[rel=stylesheet]').count()).toBe(1);
        expect(await q.locator('body').innerText()).not.toContain('"status"');
      }
      await q.context().close();
    }
    const json = await fetch(`${t.url}/no-such-page`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect((await json.json()).status).toBe(404);
    const api = await fetch(`${t.url}/v2/no-such-thing`, { headers: { accept: 'text/html,*/*' } });
    expect(api.headers.get('content-type')).toMatch(/json/);
  });
});

describe('the front page and the icon', () => {
  it('/ is styled, has a viewport and fits a phone; /favicon.ico is an icon', async () => {
    const q = await pageIn('en-GB', { width: 390, height: 844 });
    const res = await q.goto(`${t.url}/`);
    expect(res!.status()).toBe(200);
    expect(await q.locator('meta[name=viewport]').getAttribute('content')).toContain('width=device-width');
    expect(await q.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(246, 247, 249)'); // the stylesheet applied
    expect(await q.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await q.locator('.home-links a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(['/dashboard', '/docs', '/v2/openapi.json']);
    const icon = await q.goto(`${t.url}/favicon.ico`);
    expect(icon!.status()).toBe(200);
    expect(icon!.headers()['content-type']).toBe('image/x-icon');
    await q.goto(`${t.url}/`);
    const loaded = await q.evaluate(async () => {
      const img = new Image();
      img.src = '/favicon.ico';
      await img.decode();
      return img.naturalWidth;
    });
    expect(loaded).toBe(32);
    await q.context().close();
  });
});

describe('Bull Board', () => {
  it('asks nothing of the internet', async () => {
    const ctx = await t.browser.newContext({ httpCredentials: { username: 'admin', password: t.config.adminToken! } });
    const requested: string[] = [];
    ctx.on('request', (r) => requested.push(r.url()));
    const q = await ctx.newPage();
    const res = await q.goto(`${t.url}/admin/queues`);
    expect(res!.status()).toBe(200);
    await q.waitForLoadState('networkidle');
    expect(requested.length).toBeGreaterThan(2);
    expect(requested.filter((u) => !u.startsWith(`${t.url}/`))).toEqual([]);
    await ctx.close();
  });
});

/** A TCP hop between the browser and the service that can drop every connection and refuse new ones, as a stopped server or a lost network does. */
async function unreliableHop(target: URL) {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the live list', () => {
  it('says when it lost its connection and when it is back', async () => {
    const acct = await t.account();
    const hop = await unreliableHop(new URL(t.url));
    const q: Page = await pageIn('en-GB');
    await t.signIn(q, await t.person(acct.id, q)); // cookies are per host: they hold on the hop's port too
    await q.goto(`${hop.url}/dashboard/files`);
    const note = q.locator('#live-note');
    await expect.poll(() => note.textContent()).toContain('updates by itself');
    hop.cut();
    await expect.poll(() => note.textContent(), { timeout: 15_000 }).toBe('Connection lost: the list is not updating. Trying again…');
    await expect.poll(() => note.getAttribute('class')).toContain('live-lost');
    hop.restore();
    await expect.poll(() => note.textContent(), { timeout: 15_000 }).toBe('Connected again: the list is up to date.');
    await q.context().close();
    await hop.close();
  });
});
