// Every page in English, Dutch and German, photographed into docs/screenshots/<lang>/ (desktop,
// and the busiest pages on a phone), each checked by axe-core (injected through playwright-core)
// with no serious or critical violation.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { sshKeygen } from '../sftp/sftp-harness.ts';
import { SHOTS, startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let invoiceId: string;
let failedId: string;
let uploadKeyId: string;
const number = `F-2026-${randomToken(3)}`;

/** serious and critical axe findings on the page as it is now */
async function axe(p: Page): Promise<string[]> {
  await p.evaluate(AXE); // evaluated by the DevTools protocol: the page's CSP does not apply
  const found = await p.evaluate(async () => {
    const r = await (
      window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }
    ).axe.run({ resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return found;
}

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const cst = await t.api('POST', '/v2/customers', { auth: acct.liveKey, body: { customerCode: 'C-100', name: 'Bakkerij Jansen B.V.' } });
  const inv = await t.api('POST', '/v2/invoices', {
    auth: acct.liveKey,
    body: { customer: cst.body.id, invoiceNumber: number, invoiceDate: '05-02-2026', invoiceDuedate: '07-03-2026', invoiceTotal: '1210.50' },
  });
  invoiceId = inv.body.id;
  await t.api('POST', '/v2/invoices', {
    auth: acct.liveKey,
    body: { customer: cst.body.id, invoiceNumber: `${number}-2`, invoiceDate: '06-02-2026', invoiceDuedate: '08-03-2026', invoiceTotal: '89.95' },
  });
  const up = async (filename: string, content: Buffer) =>
    (await t.api('POST', '/v2/imports', { auth: acct.liveKey, body: { filename, content: content.toString('base64') } })).body.id as string;
  await up(`${number}.pdf`, await makePdf(`Factuur ${number} - Bakkerij Jansen B.V. - totaal 1.210,50`));
  failedId = await up('scan-from-the-copier-0042.pdf', await makePdf('unknown'));
  await up(`${'Jaarafrekening-Bakkerij-Jansen-en-Zonen-'.repeat(3)}2026.pdf`, await makePdf('long'));
  await up('not-really-a.pdf', Buffer.from('hello'));
  // an upload key with networks, a use and an SSH key: its own page and the settings' list are full
  const made = await t.api('POST', '/v2/account/upload-keys', {
    auth: acct.liveKey,
    body: { name: 'Ricoh 3rd floor', networks: ['127.0.0.0/8', '10.1.0.0/16'] },
  });
  expect(made.status).toBe(201);
  uploadKeyId = made.body.id;
  expect((await t.api('GET', '/v2/imports', { auth: made.body.key })).status).toBe(200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-shots-ssh-'));
  try {
    const pair = await sshKeygen(dir);
    const ssh = await t.api('POST', `/v2/account/upload-keys/${uploadKeyId}/ssh-keys`, {
      auth: acct.liveKey,
      body: { publicKey: pair.publicKey, comment: 'scanner' },
    });
    expect(ssh.status).toBe(201);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
afterAll(() => t?.close());

const LANGS = [
  ['en', 'en-GB', 'Europe/London'],
  ['nl', 'nl-NL', 'Europe/Amsterdam'],
  ['de', 'de-DE', 'Europe/Berlin'],
] as const;

describe('screenshots and accessibility', () => {
  for (const [lang, locale, timezoneId] of LANGS) {
    it(`every page in ${locale}`, async () => {
      const dir = path.join(SHOTS, lang);
      fs.mkdirSync(dir, { recursive: true });
      const ctx = await t.browser.newContext({ locale, timezoneId, viewport: { width: 1280, height: 860 } });
      const p = await ctx.newPage();
      const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
      const problems: string[] = [];
      const shoot = async (name: string, full = true) => {
        await p.waitForLoadState('networkidle').catch(() => undefined);
        await p.screenshot({ path: path.join(dir, `${name}.png`), fullPage: full });
        problems.push(...(await axe(p)).map((v) => `${name}: ${v}`));
      };
      await p.goto(`${t.url}/`);
      await shoot('home');
      await p.goto(`${t.url}/dashboard/reset`);
      await shoot('reset');
      await p.goto(`${t.url}/dashboard/sign-in`);
      await shoot('sign-in');
      await p.locator('#email').fill(who.email);
      await p.locator('#password').fill(who.password);
      await p.locator('form[action="/dashboard/sign-in"] button[type=submit]').click();
      await p.waitForURL(/\/dashboard$/);
      await expect.poll(async () => (await p.locator('body').getAttribute('data-tz')) || '').not.toBe('');
      await expect.poll(async () => (await t.api('GET', `/v2/imports/${failedId}`, { auth: acct.liveKey })).body.status).toBe('failed');
      for (const [name, url] of [
        ['overview', '/dashboard'],
        ['files', '/dashboard/files'],
        ['file', `/dashboard/files/${failedId}`],
        ['invoice', `/dashboard/invoices/${invoiceId}`],
        ['invoices', '/dashboard/invoices'],
        ['settings', '/dashboard/settings'],
        ['upload-key', `/dashboard/settings/upload-keys/${uploadKeyId}`],
        ['people', '/dashboard/people'],
        ['trail', '/dashboard/trail'],
        ['not-found', '/dashboard/nothing-here'],
      ] as const) {
        await p.goto(`${t.url}${url}`);
        if (name === 'invoice')
          await expect.poll(() => p.locator('#preview').evaluate((e: HTMLImageElement) => e.complete && e.naturalWidth)).toBeGreaterThan(0);
        await shoot(name);
      }
      await p.setViewportSize({ width: 390, height: 844 });
      for (const [name, url] of [
        ['overview-phone', '/dashboard'],
        ['files-phone', '/dashboard/files'],
        ['invoice-phone', `/dashboard/invoices/${invoiceId}`],
      ] as const) {
        await p.goto(`${t.url}${url}`);
        expect(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
        await shoot(name);
      }
      await ctx.close();
      expect(problems).toEqual([]);
    });
  }
});
