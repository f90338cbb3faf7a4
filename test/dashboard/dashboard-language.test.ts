// The dashboard in the reader's language and formats: nl-NL, de-DE and en-US browsers with their
// own time zones; the language switch kept in the person's profile; no ISO timestamp and no
// internal id in what people read. Real service, real Chromium (locale and time zone set on the
// browser context, as a person's machine sets them).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { ciiXml, einvoicePdf } from '../helpers/einvoice.ts';
import { makePdf, textPdf } from '../helpers/fixtures.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
const number = `F-${randomToken(5)}`;
let received: Date;
let importId: string;

const browserIn = async (locale: string, timezoneId: string) =>
  (await t.browser.newContext({ locale, timezoneId, viewport: { width: 1280, height: 900 } })).newPage();
/** the text of the page's main part once the page has reported its time zone */
const settledText = async (q: Page, url: string) => {
  await q.goto(`${t.url}${url}`);
  await expect.poll(async () => (await q.locator('body').getAttribute('data-tz')) || '').not.toBe('');
  return (await q.locator('main').innerText()).replace(/[\u00a0\u202f]/g, ' ');
};
const signInAs = async (q: Page, who: { email: string; password: string }, labels: { email: string; password: string; submit: string }) => {
  await q.goto(`${t.url}/dashboard/sign-in`);
  await q.getByLabel(labels.email).fill(who.email);
  await q.getByLabel(labels.password, { exact: true }).fill(who.password);
  await q.getByRole('button', { name: labels.submit, exact: true }).click();
  await q.waitForURL(/\/dashboard$/);
  // the first page reports the browser's time zone and shows itself again
  await expect.poll(async () => (await q.locator('body').getAttribute('data-tz')) || '').not.toBe('');
};
const NL = { email: 'E-mailadres', password: 'Wachtwoord', submit: 'Aanmelden' };
const DE = { email: 'E-Mail-Adresse', password: 'Passwort', submit: 'Anmelden' };
const EN = { email: 'E-mail address', password: 'Password', submit: 'Sign in' };

beforeAll(async () => {
  t = await startDashboardApp();
  acct = await t.account();
  const cst = await t.api('POST', '/v2/customers', { auth: acct.liveKey, body: { customerCode: 'C-1', name: 'Bakkerij Jansen' } });
  const inv = await t.api('POST', '/v2/invoices', {
    auth: acct.liveKey,
    body: { customer: cst.body.id, invoiceNumber: number, invoiceDate: '05-02-2026', invoiceDuedate: '07-03-2026', invoiceTotal: '1210.50' },
  });
  expect(inv.status).toBe(201);
  const imp = await t.api('POST', '/v2/imports', {
    auth: acct.liveKey,
    body: { filename: 'scan-0001.pdf', content: (await makePdf('scan', 40)).toString('base64') },
  });
  expect(imp.status).toBe(202);
  received = new Date(imp.body.receivedAt);
  importId = imp.body.id;
});
afterAll(() => t?.close());

describe('languages and formats', () => {
  it('nl-NL in Amsterdam: Dutch words, € 1.210,50, Dutch dates, local times, no ISO time or internal id', async () => {
    const q = await browserIn('nl-NL', 'Europe/Amsterdam');
    await q.goto(`${t.url}/dashboard/sign-in`);
    await q.getByRole('heading', { name: 'Aanmelden' }).waitFor();
    expect(await q.locator('html').getAttribute('lang')).toBe('nl');
    const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
    await signInAs(q, who, NL);

    const invoices = await settledText(q, '/dashboard/invoices');
    expect(invoices).toContain('Facturen zonder document');
    expect(invoices).toContain('€ 1.210,50');
    expect(invoices).toContain('5 feb 2026');
    expect(invoices).not.toContain('05-02-2026');

    const files = await settledText(q, '/dashboard/files');
    expect(files).toContain('Ontvangen bestanden');
    expect(files).toContain('API (uw eigen systeem)');
    expect(files).toMatch(/\d+,\d kB|\d+ bytes/);
    // the time in Amsterdam (UTC+1 in winter), not in UTC
    const local = new Intl.DateTimeFormat('nl-NL', { hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Amsterdam' }).format(received);
    const utc = new Intl.DateTimeFormat('nl-NL', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(received);
    expect(local).not.toBe(utc);
    expect(files).toContain(local);
    expect(files).not.toContain('UTC');
    for (const text of [files, invoices, await settledText(q, '/dashboard'), await settledText(q, '/dashboard/settings')]) {
      expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
      expect(text).not.toMatch(/\b(acc|imp|usr|inv|cst)_\w+/);
    }
    // the reason of the file, worded in Dutch from its code, on the list and in the file's history,
    // once the worker has ended it (CI's load can hold it for longer than a page's poll)
    await expect.poll(async () => (await t.api('GET', `/v2/imports/${importId}`, { auth: acct.liveKey })).body.status, { timeout: 60_000 }).toBe('failed');
    await expect.poll(() => settledText(q, '/dashboard/files')).toContain('De bestandsnaam scan-0001 is de naam van een scanner of camera, geen factuurnummer');
    expect(await settledText(q, '/dashboard/files')).not.toContain("is a scanner's or camera's name");
    const detail = await settledText(q, `/dashboard/files/${importId}`);
    expect(detail).toContain(local);
    expect(detail).toMatch(/mislukt: De bestandsnaam scan-0001 is de naam van een scanner of camera/);
    expect(detail).not.toMatch(/\bimp_\w+/);
    await q.context().close();
  });

  it('de-DE: German words and 1.210,50 €; en-US in New York: €1,210.50', async () => {
    const de = await browserIn('de-DE', 'Europe/Berlin');
    const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
    await signInAs(de, who, DE);
    const text = await settledText(de, '/dashboard/invoices');
    expect(text).toContain('Rechnungen ohne Dokument');
    // the header (product, account, the whole menu with People, Live/Test, Abmelden) is one row at 1280 px
    const rows = await de
      .locator('header.top > *')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom })));
    expect(rows.length).toBe(4);
    expect(Math.max(...rows.map((r) => r.top))).toBeLessThan(Math.min(...rows.map((r) => r.bottom)));
    expect(await de.getByRole('link', { name: 'Personen' }).isVisible()).toBe(true);
    const signOut = await de.getByRole('button', { name: /^Abmelden/ }).boundingBox();
    expect(signOut!.height).toBeLessThan(50); // one line inside the button
    // the reason of a file, worded in German from its code
    const files = await settledText(de, '/dashboard/files');
    expect(files).toContain('Der Dateiname scan-0001 ist der Name eines Scanners oder einer Kamera, keine Rechnungsnummer');
    expect(files).not.toContain("is a scanner's or camera's name");
    expect(text).toContain('1.210,50 €');
    expect(text).toContain('05.02.2026');
    const us = await browserIn('en-US', 'America/New_York');
    await signInAs(us, who, EN);
    const en = await settledText(us, '/dashboard/invoices');
    expect(en).toContain('€1,210.50');
    expect(en).toContain('Feb 5, 2026');
    await de.context().close();
    await us.context().close();
  });

  it('the language switch is kept in the profile, whatever the next browser asks for', async () => {
    const q = await browserIn('en-GB', 'Europe/London');
    const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
    await signInAs(q, who, EN);
    await q.getByRole('button', { name: 'DE Deutsch' }).click();
    await q.getByRole('heading', { name: 'Übersicht' }).waitFor();
    expect(new URL(q.url()).pathname).toBe('/dashboard');
    await q.context().close();
    const elsewhere = await browserIn('nl-NL', 'Europe/Amsterdam');
    await elsewhere.goto(`${t.url}/dashboard/sign-in`);
    await elsewhere.getByRole('heading', { name: 'Aanmelden' }).waitFor(); // before sign-in: the browser's language
    await signInAs(elsewhere, who, NL);
    await elsewhere.getByRole('heading', { name: 'Übersicht' }).waitFor(); // after: the profile's
    await elsewhere.context().close();
  });

  it('the record of a document that a hybrid PDF replaced says so on its file page, in Dutch and German', async () => {
    const other = await t.account();
    const cst = await t.api('POST', '/v2/customers', { auth: other.liveKey, body: { customerCode: 'C-1', name: 'Bakkerij Jansen' } });
    expect(
      (
        await t.api('POST', '/v2/invoices', {
          auth: other.liveKey,
          body: { customer: cst.body.id, invoiceNumber: 'RE-2026-4711', invoiceDate: '05-02-2026', invoiceDuedate: '07-03-2026', invoiceTotal: '1210.50' },
        })
      ).status,
    ).toBe(201);
    const send = async (filename: string, bytes: Buffer) => {
      const res = await t.api('POST', '/v2/imports', { auth: other.liveKey, body: { filename, content: bytes.toString('base64') } });
      await expect
        .poll(async () => (await t.api('GET', `/v2/imports/${res.body.id}`, { auth: other.liveKey })).body.status, { timeout: 30_000 })
        .toBe('attached');
      return res.body.id as string;
    };
    const printed = await send('printed.pdf', await textPdf(['Rechnungsnummer: RE-2026-4711', 'Gesamtbetrag: 1.210,50 EUR']));
    await send('x1.pdf', await einvoicePdf({ 'factur-x.xml': ciiXml('RE-2026-4711') }));
    for (const [locale, labels, words] of [
      ['nl-NL', NL, 'Niet meer het document van de factuur: x1.pdf heeft het vervangen als document van factuur RE-2026-4711, gevonden op zijn e-factuur'],
      ['de-DE', DE, 'Nicht mehr das Dokument der Rechnung: x1.pdf hat es als Dokument der Rechnung RE-2026-4711 ersetzt, gefunden über ihre E-Rechnung'],
    ] as const) {
      const q = await browserIn(locale, 'Europe/Amsterdam');
      await signInAs(q, await t.person(other.id, await (await t.browser.newContext()).newPage()), labels);
      const detail = await settledText(q, `/dashboard/files/${printed}`);
      expect(detail).toContain(words);
      // the history line says it as it is, not "attached to invoice ..." a second time
      expect(await q.locator('ol.history li.replaced').innerText()).toContain(words);
      expect(detail).not.toMatch(/\bimp_\w+/);
      await q.context().close();
    }
  });

  it('a flash message is worded in the reader language', async () => {
    const q = await browserIn('nl-NL', 'Europe/Amsterdam');
    const who = await t.person(acct.id, await (await t.browser.newContext()).newPage());
    await signInAs(q, who, NL);
    await settledText(q, '/dashboard/settings');
    await q.getByRole('button', { name: 'Vervang de test-sleutel' }).click({ trial: true });
    await q.locator('#rotate-test-confirm').evaluate((box: HTMLInputElement) => box.removeAttribute('required'));
    await q.getByRole('button', { name: 'Vervang de test-sleutel' }).click();
    await q.getByText('Vink het vakje aan om te bevestigen').waitFor();
    await q.context().close();
  });
});
