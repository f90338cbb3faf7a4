// The invoice page, reached from the invoice numbers the dashboard shows: customer, amounts,
// status, the document with a server-side preview of its first page (an image that loads under
// the CSP, rendered once and then read from the cache), its history and the files that tried it.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let p: Page;
const number = `RE-${randomToken(5)}`;
const bare = `RE-${randomToken(5)}`;
const complaints: string[] = [];
let attachedId: string;

const invoice = async (invoiceNumber: string) => {
  const cst = await t.api('POST', '/v2/customers', { auth: acct.liveKey, body: { customerCode: `C-${randomToken(4)}`, name: 'Müller & Söhne GmbH' } });
  const res = await t.api('POST', '/v2/invoices', {
    auth: acct.liveKey,
    body: { customer: cst.body.id, invoiceNumber, invoiceDate: '05-02-2026', invoiceDuedate: '07-03-2026', invoiceTotal: '1210.50' },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const upload = async (filename: string, content: Buffer) =>
  (await t.api('POST', '/v2/imports', { auth: acct.liveKey, body: { filename, content: content.toString('base64') } })).body.id as string;
const status = async (id: string) => (await t.api('GET', `/v2/imports/${id}`, { auth: acct.liveKey })).body.status;

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  await invoice(number);
  await invoice(bare);
  const junk = await upload(`${number}.pdf`, Buffer.from('this is not a PDF at all'));
  attachedId = await upload(`${number}.pdf`, await makePdf(`Invoice ${number}`));
  for (const id of [junk, attachedId]) await vi.waitFor(async () => expect(await status(id)).not.toBe('received'), { timeout: 20_000, interval: 100 });
  const ctx = await t.browser.newContext({ viewport: { width: 1280, height: 900 } });
  ctx.on('console', (m) => m.type() === 'error' && complaints.push(m.text()));
  p = await ctx.newPage();
  await t.signIn(p, await t.person(acct.id, p));
});
afterAll(() => t?.close());

describe('the invoice page', () => {
  it('opens from the invoice number in the files list and shows customer, amounts, status, preview, history and files', async () => {
    expect(await status(attachedId)).toBe('attached');
    await p.goto(`${t.url}/dashboard/files`);
    await p.locator(`#rows tr[data-id="${attachedId}"]`).getByRole('link', { name: number, exact: true }).click();
    await p.getByRole('heading', { name: `Invoice ${number}` }).waitFor();
    const text = (await p.locator('main').innerText()).replace(/[\u00a0\u202f]/g, ' ');
    expect(text).toContain('Müller & Söhne GmbH');
    expect(text).toContain('€1,210.50');
    expect(text).toContain('open');
    expect(text).toContain('Feb 5, 2026'); // the context's en-US
    // the preview: an image from this server that loaded, a page in portrait
    const img = p.locator('#preview');
    await expect.poll(() => img.evaluate((e: HTMLImageElement) => e.complete && e.naturalWidth)).toBeGreaterThan(0);
    const size = await img.evaluate((e: HTMLImageElement) => ({ w: e.naturalWidth, h: e.naturalHeight }));
    expect(size.h).toBeGreaterThan(size.w);
    // and it shows the page's text: dark pixels on the white page
    const dark = await img.evaluate((e: HTMLImageElement) => {
      const c = document.createElement('canvas');
      [c.width, c.height] = [e.naturalWidth, e.naturalHeight];
      const ctx = c.getContext('2d')!;
      ctx.drawImage(e, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i] < 100 && px[i + 1] < 100 && px[i + 2] < 100) n++;
      return n;
    });
    expect(dark).toBeGreaterThan(50);
    const previews = path.join(t.config.dataDir, 'previews');
    expect(fs.readdirSync(previews).filter((f) => f.endsWith('.png'))).toHaveLength(1);
    const cachedAt = fs.statSync(path.join(previews, fs.readdirSync(previews)[0])).mtimeMs;
    await p.reload();
    await expect.poll(() => p.locator('#preview').evaluate((e: HTMLImageElement) => e.complete && e.naturalWidth)).toBeGreaterThan(0);
    expect(fs.statSync(path.join(previews, fs.readdirSync(previews)[0])).mtimeMs).toBe(cachedAt); // read from the cache, not rendered again
    // history and the files that tried it: the refused one and the attached one
    const history = await p.locator('ol.history').innerText();
    expect(history).toContain(`${number}.pdf attached`);
    expect(history).toContain(`${number}.pdf failed`);
    expect(await p.locator('ul.attention li').count()).toBe(2);
    expect(complaints).toEqual([]);
    await p.screenshot({ path: '/tmp/wt30-invoice.png', fullPage: true });
  });

  it('opens from the list of invoices without a document, and says there is none', async () => {
    await p.goto(`${t.url}/dashboard/invoices`);
    await p.getByRole('link', { name: bare }).click();
    await p.getByRole('heading', { name: `Invoice ${bare}` }).waitFor();
    expect(await p.locator('#preview').count()).toBe(0);
    expect(await p.locator('main').innerText()).toContain('None yet');
  });

  it("another account's invoice and its preview answer 404", async () => {
    const other = await t.account();
    const cst = await t.api('POST', '/v2/customers', { auth: other.liveKey, body: { customerCode: 'C-9', name: 'Else' } });
    const inv = await t.api('POST', '/v2/invoices', {
      auth: other.liveKey,
      body: { customer: cst.body.id, invoiceNumber: 'X-1', invoiceDate: '05-02-2026', invoiceDuedate: '07-03-2026', invoiceTotal: '1.00' },
    });
    for (const url of [`/dashboard/invoices/${inv.body.id}`, `/dashboard/invoices/${inv.body.id}/preview.png`])
      expect((await p.request.get(`${t.url}${url}`)).status(), url).toBe(404);
  });
});
