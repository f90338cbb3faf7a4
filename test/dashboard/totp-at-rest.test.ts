// TOTP keys at rest: sealed with AES-256-GCM (SECRETS_KEY, or the key generated into DATA_DIR),
// never the clear base32 in the database; sign-in with a code still works; a key stored in clear
// by the code before (as it wrote it) keeps working and is sealed on first use and at start.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/services/secret-box.ts';
import { UserService } from '../../src/services/user-service.ts';
import { testConfig } from '../helpers/test-app.ts';
import { startDashboardApp, timeZoneReported, totp, type DashboardApp } from './dashboard-harness.ts';

let d: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;

beforeAll(async () => {
  d = await startDashboardApp();
  acct = await d.account();
});
afterAll(() => d?.close());

const stored = async (email: string) =>
  (await d.db.query<{ id: string; totp_secret: string | null }>('select id, totp_secret from account_users where email = $1', [email]))[0];

async function codeSignIn(q: Page, who: { email: string; password: string }, code: string) {
  await q.goto(`${d.url}/dashboard/sign-in`);
  await q.getByLabel('E-mail address').fill(who.email);
  await q.getByLabel('Password').fill(who.password);
  await q.getByRole('button', { name: 'Sign in' }).click();
  await q.getByLabel('Code from your authenticator app').fill(code);
  await q.getByRole('button', { name: 'Sign in' }).click();
  await q.getByRole('heading', { name: 'Overview' }).waitFor();
  await timeZoneReported(q);
}

describe('TOTP keys at rest', () => {
  it('are stored sealed, never as the base32 the app holds; sign-in with a code works', async () => {
    const q = await (await d.browser.newContext()).newPage();
    const who = await d.person(acct.id, q);
    await d.signIn(q, who);
    await q.goto(`${d.url}/dashboard/settings`);
    await q.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    const secret = (await q.locator('#totp-secret').textContent())!;
    const at = Date.now();
    await q.getByLabel('Code from the app').fill(totp(secret, at));
    await q.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await q.getByText('Two-step sign-in is on.').waitFor();

    const row = await stored(who.email);
    expect(row.totp_secret).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(row.totp_secret).not.toContain(secret);
    expect(Buffer.from(row.totp_secret!.slice(3), 'base64url').toString('latin1')).not.toContain(secret);
    // the key was generated into DATA_DIR on first start, readable by the service's user only
    const keyFile = path.join(d.config.dataDir, 'secrets-key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(new SecretBox(fs.readFileSync(keyFile, 'utf8').trim()).open(row.totp_secret!, row.id)).toBe(secret);

    await q.getByRole('button', { name: /Sign out/ }).click();
    await codeSignIn(q, who, totp(secret, at + 30_000));
    await q.context().close();
  });

  it('a key stored in clear by the code before keeps working and is sealed at its first use; at start the rest are sealed', async () => {
    const q = await (await d.browser.newContext()).newPage();
    const who = await d.person(acct.id, q);
    const other = await d.person(acct.id, q);
    // as the code before wrote them: the base32 itself
    const [secret, otherSecret] = ['JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU'];
    for (const [email, s] of [
      [who.email, secret],
      [other.email, otherSecret],
    ]) {
      await d.db.query('update account_users set totp_secret = $2, totp_last_step = null where email = $1', [email, s]);
    }
    await codeSignIn(q, who, totp(secret));
    const row = await stored(who.email);
    expect(row.totp_secret).toMatch(/^v1:/);
    expect(row.totp_secret).not.toContain(secret);
    // and it still signs in, now from the sealed key
    await q.context().clearCookies();
    await codeSignIn(q, who, totp(secret, Date.now() + 30_000));

    // what the api role does at start: the other clear key is sealed too, and still opens
    expect(await d.svc.container.users.prepareSecrets()).toBe(1);
    const otherRow = await stored(other.email);
    expect(otherRow.totp_secret).toMatch(/^v1:/);
    const key = fs.readFileSync(path.join(d.config.dataDir, 'secrets-key'), 'utf8').trim();
    expect(new SecretBox(key).open(otherRow.totp_secret!, otherRow.id)).toBe(otherSecret);
    // a sealed key copied onto another person's row does not open there
    expect(() => new SecretBox(key).open(otherRow.totp_secret!, row.id)).toThrow();
    expect(await d.svc.container.users.prepareSecrets()).toBe(0);
    await q.context().close();
  });

  it('without a key (PostgreSQL and no SECRETS_KEY) the service refuses to start once anyone uses it, and never turns it on', async () => {
    const c = d.svc.container;
    const keyless = new UserService({ db: c.db, repos: c.repos, accounts: c.accounts, idleMinutes: 30 });
    await expect(keyless.prepareSecrets()).rejects.toThrow(/SECRETS_KEY is required/);
    const someone = (await d.db.query<{ id: string }>("select id from account_users where totp_secret like 'v1:%' limit 1"))[0];
    await expect(keyless.checkSecondFactor(someone.id, '123456')).rejects.toMatchObject({ kind: 'unavailable' });
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    await expect(keyless.enableSecondFactor(someone.id, secret, totp(secret))).rejects.toMatchObject({
      kind: 'unprocessable',
      detail: expect.stringMatching(/SECRETS_KEY/),
    });
    // another key than the one that sealed it: refused plainly, not a crash
    const wrongKey = new UserService({
      db: c.db,
      repos: c.repos,
      accounts: c.accounts,
      idleMinutes: 30,
      box: new SecretBox('another key of at least thirty-two characters'),
    });
    await expect(wrongKey.checkSecondFactor(someone.id, '123456')).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('SECRETS_KEY is at least 32 characters', () => {
    expect(() => testConfig({}, { SECRETS_KEY: 'too short' })).toThrow(/SECRETS_KEY must be at least 32 random characters/);
    expect(testConfig({}, { SECRETS_KEY: 'k'.repeat(32) }).secretsKey).toBe('k'.repeat(32));
  });
});
