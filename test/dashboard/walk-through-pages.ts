// Page helpers of the dashboard walk-through (dashboard.test.ts): what a person does on a page
// (drop files, find a row) and the screenshots for docs/, each checked for unnamed controls first.
import net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { SHOTS } from './dashboard-harness.ts';

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
/** form controls that a screen reader would announce without a name */
const unlabelled = (p: Page) =>
  p.evaluate(() => [
    ...[...document.querySelectorAll<HTMLInputElement>('input:not([type=hidden]), select, textarea')]
      .filter((el) => !el.hidden && !el.labels?.length && !el.getAttribute('aria-label'))
      .map((el) => el.outerHTML),
    ...[...document.querySelectorAll('button, a')].filter((el) => !(el.textContent ?? '').trim() && !el.getAttribute('aria-label')).map((el) => el.outerHTML),
  ]);
/** every page photographed for the docs is checked for unnamed controls first */
export async function shot(p: Page, name: string) {
  expect(await unlabelled(p), name).toEqual([]);
  await p.screenshot({ path: path.join(SHOTS, `dashboard-${name}.png`), fullPage: true });
}
/** drops files on the drop zone as a person would drag them from their desktop */
export async function drop(p: Page, files: { name: string; bytes: Buffer }[]) {
  const dataTransfer = await p.evaluateHandle(
    (list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (ch) => ch.charCodeAt(0))], f.name, { type: 'application/pdf' }));
      return dt;
    },
    files.map((f) => ({ name: f.name, b64: f.bytes.toString('base64') })),
  );
  await p.dispatchEvent('#drop-zone', 'drop', { dataTransfer });
}
export const row = (p: Page, filename: string, status: string) => p.locator(`#rows tr[data-status="${status}"]`, { hasText: filename });
