// The received-files list with many files: cursor pages with the filter in the address, a CSV
// export of everything the filter shows, a long name that never widens the page (desktop and
// phone), retry/discard of selected files, and actions offered only where they can succeed.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let p: Page;
const LONG = `${'Jaarafrekening-Bakkerij-Jansen-en-Zonen-BV-'.repeat(5)}2026.pdf`;
const ids: string[] = [];

const upload = async (filename: string, content: Buffer) => {
  const res = await t.api('POST', '/v2/imports', { auth: acct.liveKey, body: { filename, content: content.toString('base64') } });
  expect(res.status).toBe(202);
  return res.body.id as string;
};
const listed = () => p.locator('#rows tr[data-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')!));

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const pdf = await makePdf('no invoice for this one');
  for (let i = 0; i < 119; i++) ids.push(await upload(`scan-${String(i).padStart(3, '0')}.pdf`, pdf));
  ids.push(await upload(LONG, pdf));
  // no invoice exists: every file fails once the worker has looked at it
  const failed = async () =>
    (await t.svc.container.db.query<{ n: number }>(`select count(*)::int as n from intake_records where account_id = $1 and status = 'failed'`, [acct.id]))[0]
      .n;
  await vi.waitFor(async () => expect(await failed()).toBe(120), { timeout: 60_000, interval: 200 });
  const ctx = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
  p = await ctx.newPage();
  await t.signIn(p, await t.person(acct.id, p));
}, 120_000);
afterAll(() => t?.close());

describe('received files', () => {
  it('a 120-file account pages through 50 + 50 + 20 rows with the filter kept in the address', async () => {
    await p.goto(`${t.url}/dashboard/files?status=failed`);
    const seen: string[] = [];
    for (const expected of [50, 50, 20]) {
      const rows = await listed();
      expect(rows.length).toBe(expected);
      seen.push(...rows);
      if (expected === 20) break;
      await p.locator('#next-page').click();
      await p.waitForURL(/after=imp_/);
      expect(new URL(p.url()).searchParams.get('status')).toBe('failed');
    }
    expect(await p.locator('#next-page').count()).toBe(0);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('exports the 120 rows the filter shows, all pages, as CSV', async () => {
    await p.goto(`${t.url}/dashboard/files?status=failed`);
    const href = await p.locator('a.export').getAttribute('href');
    const res = await p.request.get(`${t.url}${href}`);
    expect(res.headers()['content-type']).toMatch(/^text\/csv/);
    const lines = (await res.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines.length).toBe(121);
    expect(lines[0]).toBe('Received,Channel,Sender,File,Size (bytes),Status,Reason,Invoice');
    expect(lines.filter((l) => l.includes(LONG))).toHaveLength(1);
    expect(lines[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},Upload \/ API,API \(your back-end\),/);
    const narrowed = await p.request.get(`${t.url}/dashboard/files.csv?q=scan-00`);
    expect((await narrowed.text()).trim().split('\r\n').length).toBe(11); // scan-000 .. scan-009
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`a long file name does not widen the page (${name}); the whole name is on hover and on its page`, async () => {
      await p.setViewportSize(viewport);
      await p.goto(`${t.url}/dashboard/files?q=Jaarafrekening`);
      const link = p.locator('#rows a', { hasText: 'Jaarafrekening' });
      expect(await link.getAttribute('title')).toBe(LONG);
      const widths = await p.evaluate(() => {
        const wrap = document.querySelector('.table-wrap')!;
        return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, table: wrap.scrollWidth, box: wrap.clientWidth };
      });
      expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
      expect(widths.table).toBeLessThanOrEqual(widths.box); // the table does not scroll inside its box either: status and reason stay in view
      await link.click();
      expect(await p.locator('h1').textContent()).toBe(LONG);
      const page = await p.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
      expect(page.scroll).toBeLessThanOrEqual(page.inner);
    });
  }

  it('retries and discards the selected files, and says how many', async () => {
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.goto(`${t.url}/dashboard/files?q=scan-01`);
    const picked = (await listed()).slice(0, 3);
    for (const id of picked) await p.locator(`#rows tr[data-id="${id}"] input[name=ids]`).check();
    await p.getByRole('button', { name: 'Retry selected' }).click();
    await p.getByText('Being matched again: 3. Could not be retried: 0.').waitFor();
    expect(new URL(p.url()).searchParams.get('q')).toBe('scan-01');
    await expect
      .poll(async () => (await Promise.all(picked.map(async (id) => (await t.api('GET', `/v2/imports/${id}`, { auth: acct.liveKey })).body.status))).join())
      .toBe('failed,failed,failed');

    // the page above was drawn while the files were being matched again: a person reloads it to act on what they are now
    await p.goto(`${t.url}/dashboard/files?q=scan-01`);
    for (const id of picked.slice(0, 2)) await p.locator(`#rows tr[data-id="${id}"] input[name=ids]`).check();
    await p.getByRole('button', { name: 'Discard selected' }).click();
    await p.getByText('Tick the box to confirm that the selected files should be discarded.').waitFor();
    for (const id of picked.slice(0, 2)) await p.locator(`#rows tr[data-id="${id}"] input[name=ids]`).check();
    await p.getByLabel('Yes, discard the selected files').check();
    await p.getByRole('button', { name: 'Discard selected' }).click();
    await p.getByText('Discarded: 2. Could not be discarded: 0.').waitFor();
    expect(await listed()).not.toContain(picked[0]);
    expect(await listed()).toContain(picked[2]);
  });

  it('offers only the actions that can succeed', async () => {
    const junk = await upload('not-a-pdf.pdf', Buffer.from('hello, this is no PDF'));
    await expect.poll(async () => (await t.api('GET', `/v2/imports/${junk}`, { auth: acct.liveKey })).body.status).toBe('failed');
    await p.goto(`${t.url}/dashboard/files/${junk}`);
    expect(await p.getByRole('button', { name: 'Retry' }).count()).toBe(0); // refused on arrival: nothing to match again
    expect(await p.getByRole('button', { name: 'Assign' }).count()).toBe(0);
    expect(await p.getByRole('button', { name: 'Discard' }).count()).toBe(1);
    await p.goto(`${t.url}/dashboard/files/${ids[5]}`);
    expect(await p.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    expect(await p.getByRole('button', { name: 'Assign' }).count()).toBe(1);
  });
});
