// "Forgot your password?" with SMTP: the link is e-mailed in the person's language (and so is an
// owner's invite of a colleague), works once, keeps two-step sign-in as it was, ends the person's
// sessions; an unknown address gets the same answer and no mail; the token never reaches the log.
// Without SMTP the page sends people to their administrator. Real service, a real SMTP receiver,
// real Chromium.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let t: DashboardApp;
let smtp: SmtpSink;
const logs: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startDashboardApp({ smtpUrl: smtp.url }, { logs });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const ask = async (q: Page, email: string) => {
  await q.goto(`${t.url}/dashboard/sign-in`);
  await q.getByRole('link', { name: /Forgot your password|Wachtwoord vergeten/ }).click();
  await q.locator('#reset-email').fill(email);
  await q.locator('form[action="/dashboard/reset"] button').click();
  await q.waitForURL(/\/dashboard\/sign-in$/);
  return (await q.locator('.notice').textContent())?.trim();
};

describe('password reset by e-mail', () => {
  it('sends a one-time link in the person language; the new password signs in, the old one and the link no longer', async () => {
    const acct = await t.account();
    const setup = await (await t.browser.newContext()).newPage();
    const who = await t.person(acct.id, setup);
    await t.signIn(setup, who);
    await setup.getByRole('button', { name: 'NL Nederlands' }).click(); // the profile's language words the e-mail
    await setup.getByRole('heading', { name: 'Overzicht' }).waitFor();
    // an invite from the dashboard is worded in the inviting owner's language
    const colleague = `c${who.email}`;
    await setup.getByRole('link', { name: 'Personen' }).click();
    await setup.getByLabel('E-mailadres').fill(colleague);
    await setup.getByRole('button', { name: 'Uitnodigen', exact: true }).click();
    await setup.locator('#invite-link').waitFor();
    await expect.poll(() => smtp.to(colleague).length).toBe(1);
    expect(smtp.to(colleague)[0].parsed.subject).toBe('Uw uitnodiging voor het invoice-intake-dashboard');
    expect(smtp.to(colleague)[0].parsed.text).toContain('de link werkt één keer, 24 uur lang');
    const q = await (await t.browser.newContext({ locale: 'nl-NL' })).newPage();
    expect(await ask(q, who.email.toUpperCase())).toBe('Heeft dat adres toegang, dan is een link voor een nieuw wachtwoord onderweg. Kijk in uw e-mail.');
    const resets = () => smtp.to(who.email).filter((m) => !/invite/i.test(m.parsed.subject ?? '')); // the operator's invite was e-mailed too
    await expect.poll(() => resets().length).toBe(1);
    const mail = resets()[0].parsed;
    expect(mail.subject).toBe('Stel een nieuw wachtwoord in voor het invoice-intake-dashboard');
    const link = /https?:\/\/\S+\/dashboard\/reset\/\w+/.exec(mail.text ?? '')![0];
    // an unknown address: the same words, no mail
    expect(await ask(q, 'nobody-here@example.com')).toBe('Heeft dat adres toegang, dan is een link voor een nieuw wachtwoord onderweg. Kijk in uw e-mail.');
    expect(smtp.to('nobody-here@example.com')).toHaveLength(0);

    await q.goto(link.replace(/^https?:\/\/[^/]+/, t.url));
    await q.getByLabel('Nieuw wachtwoord').fill('my new password');
    await q.getByLabel('Herhaal het wachtwoord').fill('my new password');
    await q.getByRole('button', { name: 'Wachtwoord instellen' }).click();
    await q.getByText('Uw wachtwoord is ingesteld').waitFor();
    // the session that was open ended; the link works once
    expect((await setup.request.get(`${t.url}/dashboard/files`, { maxRedirects: 0 })).status()).toBe(303);
    expect((await q.request.get(link.replace(/^https?:\/\/[^/]+/, t.url))).status()).toBe(410);
    const e = await (await t.browser.newContext()).newPage();
    await e.goto(`${t.url}/dashboard/sign-in`);
    await e.getByLabel('E-mail address').fill(who.email);
    await e.getByLabel('Password').fill(who.password);
    await e.getByRole('button', { name: 'Sign in' }).click();
    await e.getByText('The e-mail address or the password is not right.').waitFor();
    await e.getByLabel('Password').fill('my new password');
    await e.getByRole('button', { name: 'Sign in' }).click();
    await e.getByRole('heading', { name: 'Overzicht' }).waitFor(); // signed in, in the profile's language
    // the token of the link is nowhere in the log
    const token = link.split('/').pop()!;
    expect(logs.join('')).toContain('/dashboard/reset/[redacted]');
    expect(logs.join('').includes(token)).toBe(false);
  });
});

describe('without SMTP', () => {
  it('the page sends people to their administrator', async () => {
    const plain = await startDashboardApp();
    try {
      const q = await (await plain.browser.newContext()).newPage();
      await q.goto(`${plain.url}/dashboard/sign-in`);
      await q.getByRole('link', { name: 'Forgot your password?' }).click();
      await q.locator('#reset-no-mail').waitFor();
      expect(await q.locator('#reset-email').count()).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
