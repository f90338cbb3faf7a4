// The dashboard in a real browser (playwright-core + Debian's chromium) against the real service
// (api, worker, ftp and sftp roles): the issue's walk-through and the screenshots in docs/.
// Refusals and sign-in are in dashboard-sign-in.test.ts.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startDashboardApp, timeZoneReported, type DashboardApp } from './dashboard-harness.ts';
import { drop, freePort, row, shot } from './walk-through-pages.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let liveKey: string;
let ctx: BrowserContext;
let page: Page;
let who: { email: string; password: string };
let pdf: Buffer;
let rx: Receiver;
let down: Receiver;
// everything the pages load and every complaint of the browser (a CSP violation is one)
const loaded: string[] = [];
const complaints: string[] = [];

const invoice = async (number: string) => {
  const cst = await t.api('POST', '/v2/customers', { auth: liveKey, body: { customerCode: `C-${randomToken(6)}`, name: 'Bakkerij De Ster' } });
  const res = await t.api('POST', '/v2/invoices', {
    auth: liveKey,
    body: { customer: cst.body.id, invoiceNumber: number, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00' },
  });
  expect(res.status).toBe(201);
  return res.body;
};

beforeAll(async () => {
  [rx, down] = [await startReceiver(), await startReceiver()];
  down.script.push(...Array(1000).fill(503));
  t = await startDashboardApp({
    roles: ['api', 'worker', 'ftp', 'sftp'],
    ftpPort: await freePort(),
    ftpPasvRange: [41000, 41010],
    sftpPort: await freePort(),
    sftpHost: '127.0.0.1',
    webhookAllowPrivate: true,
    webhookBackoffMs: 50,
    webhookBackoffMaxMs: 200,
    webhookDisableAfterMs: 1000,
  });
  acct = await t.account();
  liveKey = acct.liveKey;
  ctx = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  ctx.on('request', (r) => loaded.push(r.url()));
  ctx.on('console', (m) => m.type() === 'error' && complaints.push(m.text()));
  ctx.on('weberror', (e) => complaints.push(e.error().message));
  page = await ctx.newPage();
  pdf = await makePdf('Invoice');
});
afterAll(async () => {
  await t?.close();
  await Promise.all([rx?.close(), down?.close()]);
});

describe('dashboard walk-through', () => {
  it('invite -> set password -> sign in', async () => {
    const invite = await t.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email: 'screenshot@example.com' } });
    await page.goto(invite.body.inviteUrl);
    await shot(page, 'invite');
    who = await t.person(acct.id, page);
    await page.goto(`${t.url}/dashboard/sign-in`);
    await shot(page, 'sign-in');
    // with the keyboard alone: the skip link first, then the form in order, Enter submits
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await timeZoneReported(page); // the next test clicks a link on this page
    const cookie = (await ctx.cookies()).find((c) => c.name === 'ii_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
  });

  it('shows the FTP user, certificate fingerprint and import addresses that the admin API and /v2/account give', async () => {
    const admin = (await t.api('GET', `/admin/accounts/${acct.id}`, { auth: 'admin' })).body;
    const account = (await t.api('GET', '/v2/account', { auth: liveKey })).body;
    await page.getByRole('link', { name: 'Connection settings' }).click();
    await expect.poll(() => page.locator('#ftp-user').textContent()).toBe(admin.ftpUsername);
    expect(await page.locator('#import-live').textContent()).toBe(admin.importAddresses.live);
    expect(await page.locator('#import-test').textContent()).toBe(admin.importAddresses.test);
    expect(await page.locator('#ftp-port').textContent()).toBe(String(t.config.ftpPort));
    expect(account.ftp.certificateSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(await page.locator('#ftp-fingerprint').textContent()).toBe(account.ftp.certificateSha256);
    expect(await page.locator('#sftp-port').textContent()).toBe(String(account.sftp.port));
    expect(account.sftp.port).toBe(t.config.sftpPort);
  });

  it('rotates the live key: the new key is shown once and the old one answers 401 on /v2', async () => {
    expect((await t.api('GET', '/v2/customers', { auth: liveKey })).status).toBe(200);
    await page.getByLabel('The current live key stops working at once').check();
    await page.getByRole('button', { name: 'Rotate the live key' }).click();
    const fresh = (await page.locator('#new-key').textContent())!;
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(fresh);
    expect(fresh).toMatch(/^live_\w{40}$/);
    await shot(page, 'settings-new-key');
    expect((await t.api('GET', '/v2/customers', { auth: liveKey })).status).toBe(401);
    expect((await t.api('GET', '/v2/customers', { auth: fresh })).status).toBe(200);
    expect(await page.locator('#hint-live').textContent()).toBe(`${fresh.slice(0, 9)}...${fresh.slice(-4)}`);
    liveKey = fresh;
    await page.goto(`${t.url}/dashboard/settings`);
    expect(await page.locator('#new-key').count()).toBe(0);
  });

  it("lists the mode's webhooks; one that failed for the whole disable period shows as disabled", async () => {
    const add = async (url: string, events: string[]) =>
      (await t.api('POST', '/v2/webhooks', { auth: liveKey, body: { Url: url, Events: events } })).body.id as string;
    const ok = await add(`${rx.url}/erp/intake-events`, ['import.attached', 'import.failed']);
    const gone = await add(`${down.url}/old-erp/paid`, ['invoice.paid']);
    await t.api('PATCH', `/v2/invoices/${(await invoice(`F-${randomToken(5)}`)).id}`, { auth: liveKey, body: { invoiceStatus: 'paid' } });
    await expect.poll(async () => (await t.api('GET', `/v2/webhooks/${gone}`, { auth: liveKey })).body.enabled, { timeout: 20_000 }).toBe(false);
    await page.goto(`${t.url}/dashboard/settings`);
    expect(await page.locator(`tr[data-id="${ok}"] .webhook-state`).textContent()).toContain('enabled');
    const state = (await page.locator(`tr[data-id="${gone}"] .webhook-state`).textContent())!;
    expect(state).toContain('disabled');
    expect(state).toContain((await t.api('GET', `/v2/webhooks/${gone}`, { auth: liveKey })).body.disabledReason);
    await shot(page, 'settings');
  });

  it('a dragged PDF named after an invoice number turns attached without a reload', async () => {
    const inv = await invoice(`F-${randomToken(5)}`);
    await page.goto(`${t.url}/dashboard/files`);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await drop(page, [{ name: `${inv.invoiceNumber}.pdf`, bytes: pdf }]);
    await row(page, `${inv.invoiceNumber}.pdf`, 'attached').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect((await t.api('GET', `/v2/invoices/${inv.id}`, { auth: liveKey })).body.document).toBe(`${inv.invoiceNumber}.pdf`);
  });

  it('a PDF that matches nothing is assigned to an invoice by its number', async () => {
    const inv = await invoice(`F-${randomToken(5)}`);
    await drop(page, [{ name: 'scan-0042.pdf', bytes: pdf }]);
    await row(page, 'scan-0042.pdf', 'failed').waitFor({ timeout: 30_000 });
    await row(page, 'scan-0042.pdf', 'failed').getByRole('link', { name: 'scan-0042.pdf' }).click();
    await shot(page, 'file-detail');
    await page.getByLabel('Assign to the invoice with number').fill(inv.invoiceNumber);
    await page.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.locator('#file-status').textContent()).toBe('attached');
    expect(await page.getByRole('status').textContent()).toContain(`Attached to invoice ${inv.invoiceNumber}`);
    expect(await page.locator('ol.history li').allTextContents()).toEqual([
      expect.stringContaining('received by Upload / API'),
      expect.stringContaining("failed: The file name scan-0042 is a scanner's or camera's name"),
      expect.stringContaining(`attached to invoice ${inv.invoiceNumber}`),
    ]);
    expect((await t.api('GET', `/v2/invoices/${inv.id}`, { auth: liveKey })).body.document).toBe('scan-0042.pdf');
    const download = await page.request.get(`${t.url}${await page.getByRole('link', { name: 'Download the file' }).getAttribute('href')}`);
    expect(Buffer.compare(await download.body(), pdf)).toBe(0);
  });

  it('a failed file is retried once its invoice exists', async () => {
    const number = `F-${randomToken(5)}`;
    await page.goto(`${t.url}/dashboard/files`);
    await drop(page, [{ name: `${number}.pdf`, bytes: pdf }]);
    await row(page, `${number}.pdf`, 'failed').waitFor({ timeout: 30_000 });
    await invoice(number);
    await row(page, `${number}.pdf`, 'failed').getByRole('link').click();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('link', { name: 'Received files' }).first().click();
    await row(page, `${number}.pdf`, 'attached').waitFor({ timeout: 30_000 });
  });

  it('filters by status and channel, searches by file name and invoice number, and discards a file', async () => {
    // one file by FTPS with curl, two dragged at once that match nothing
    const number = `F-${randomToken(5)}`;
    await invoice(number);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dash-ftp-'));
    fs.writeFileSync(path.join(dir, `${number}.pdf`), pdf);
    await promisify(execFile)(
      'curl',
      ['-sS', '--ssl-reqd', '-k', '-T', path.join(dir, `${number}.pdf`), `ftp://127.0.0.1:${t.config.ftpPort}/`, '--user', `${acct.ftpUsername}:${liveKey}`],
      { timeout: 30_000 },
    );
    fs.rmSync(dir, { recursive: true });
    await page.goto(`${t.url}/dashboard/files`);
    await drop(page, [
      { name: 'junk-scan.pdf', bytes: pdf },
      { name: 'unknown-supplier.pdf', bytes: pdf },
    ]);
    for (const name of ['junk-scan.pdf', 'unknown-supplier.pdf']) await row(page, name, 'failed').waitFor({ timeout: 30_000 });
    await row(page, `${number}.pdf`, 'attached').waitFor({ timeout: 30_000 });

    const listed = () =>
      page.locator('#rows tr[data-id]').evaluateAll((rows) => rows.map((r) => `${r.querySelector('a')!.textContent} ${(r as HTMLElement).dataset.status}`));
    const filter = async (o: { q?: string; status?: string; channel?: string; period?: string }) => {
      await page.getByLabel('File name or invoice number').fill(o.q ?? '');
      await page.getByLabel('Status').selectOption(o.status ?? '');
      await page.getByLabel('Channel').selectOption(o.channel ?? '');
      await page.getByLabel('Received', { exact: true }).selectOption(o.period ?? '');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/\/dashboard\/files\?/);
    };
    await filter({ status: 'failed' });
    expect((await listed()).sort()).toEqual(['junk-scan.pdf failed', 'unknown-supplier.pdf failed']);
    await filter({ channel: 'ftp' });
    expect(await listed()).toEqual([`${number}.pdf attached`]);
    await filter({ q: number });
    expect(await listed()).toEqual([`${number}.pdf attached`]);
    await filter({ q: 'junk' });
    expect(await listed()).toEqual(['junk-scan.pdf failed']);
    // the period: one file received three days ago
    await t.db.query(`update intake_staging set received_at = now() - interval '3 days' where account_id = $1 and filename = 'unknown-supplier.pdf'`, [
      acct.id,
    ]);
    await filter({ status: 'failed', period: '24h' });
    expect(await listed()).toEqual(['junk-scan.pdf failed']);
    await filter({ status: 'failed', period: '7d' });
    expect((await listed()).sort()).toEqual(['junk-scan.pdf failed', 'unknown-supplier.pdf failed']);

    await page.getByRole('link', { name: 'junk-scan.pdf' }).click();
    await page.getByLabel('Yes, discard this file').check();
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.waitForURL(/\/dashboard\/files$/);
    expect(await page.getByRole('status').first().textContent()).toBe('The file was discarded.');
    expect(await page.locator('#rows').textContent()).not.toContain('junk-scan.pdf');
    await filter({});
    await shot(page, 'files');
  });

  it('shows the overview chart and the invoices without a document; readable on a phone', async () => {
    const open = [];
    for (let i = 0; i < 3; i++) open.push((await invoice(`F-2026-${randomToken(4)}`)).invoiceNumber);
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.locator('svg rect.s-attached').count()).toBeGreaterThan(0);
    expect(await page.locator('svg rect.s-failed').count()).toBeGreaterThan(0);
    expect(await page.locator('ul.attention').textContent()).toContain('unknown-supplier.pdf');
    await shot(page, 'overview');
    await page.getByRole('link', { name: 'Invoices without a document' }).click();
    // newest first; the invoices attached or paid earlier in this walk-through are not listed
    expect((await page.locator('table.invoices tbody tr td:first-child').allTextContents()).slice(0, 3)).toEqual(open.reverse());
    await shot(page, 'invoices');
    const phone = await ctx.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${t.url}/dashboard/files`);
    await shot(phone, 'files-phone');
    const oneFile = (await phone.locator('#rows a').first().getAttribute('href'))!;
    for (const url of ['/dashboard', '/dashboard/files', oneFile, '/dashboard/invoices', '/dashboard/settings']) {
      await phone.goto(`${t.url}${url}`);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), url).toBeLessThanOrEqual(390);
      if (url === '/dashboard') await shot(phone, 'overview-phone');
    }
    await phone.close();
  });

  it('the live/test switch shows one mode at a time', async () => {
    const imp = await t.api('POST', '/v2/imports', { auth: acct.testKey, body: { filename: 'test-mode-only.pdf', content: pdf.toString('base64') } });
    expect(imp.status).toBe(202);
    await page.goto(`${t.url}/dashboard/files`);
    expect(await page.locator('#rows').textContent()).not.toContain('test-mode-only.pdf');
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText('Test mode: you are looking at test data.').waitFor();
    expect(await page.getByRole('button', { name: 'Test', exact: true }).getAttribute('aria-pressed')).toBe('true');
    const rows = await page.locator('#rows tr[data-id] a').allTextContents();
    expect(rows).toEqual(['test-mode-only.pdf']);
    await page.getByRole('button', { name: 'Live', exact: true }).click();
    await expect.poll(() => page.getByText('Test mode').count()).toBe(0);
  });

  it('signs out: the old cookie opens nothing any more', async () => {
    const cookie = (await ctx.cookies()).find((c) => c.name === 'ii_session')!;
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const replay = await fetch(`${t.url}/dashboard/files`, { headers: { cookie: `ii_session=${cookie.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/dashboard/sign-in');
  });

  it('loaded nothing from elsewhere and broke no rule of the Content-Security-Policy on the way', () => {
    expect(loaded.length).toBeGreaterThan(20);
    expect(loaded.filter((u) => !u.startsWith(`${t.url}/`))).toEqual([]);
    expect(loaded).toContain(`${t.url}/dashboard/events`); // the live list is fed by server-sent events
    expect(complaints).toEqual([]);
  });
});
