// The real service (api + worker roles) on a random port with a fresh database, a headless
// Debian chromium driven by playwright-core, and helpers to make accounts and people through the
// admin API as an operator would.
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient, type HttpReply } from '../../testkit/http-client.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/test-app.ts';

/** where the docs' screenshots are written */
export const SHOTS = path.resolve(import.meta.dirname, '../../docs/screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface DashboardApp {
  svc: RunningService;
  config: Config;
  url: string;
  browser: Browser;
  /** JSON over HTTP to the service; `auth` is an API key, or `admin` for the admin token */
  api(method: string, path: string, o?: { auth?: string; body?: unknown; headers?: Record<string, string> }): Promise<HttpReply>;
  /** a fresh account, its keys and admin view */
  account(): Promise<{ id: string; name: string; liveKey: string; testKey: string; ftpUsername: string; importAddresses: { live: string; test: string } }>;
  /** invites a person and sets their password through the invite page; returns their credentials */
  person(accountId: string, page: Page, email?: string): Promise<{ email: string; password: string }>;
  /** signs in through the form, in any language, and waits for the first page's time-zone reload */
  signIn(page: Page, who: { email: string; password: string }): Promise<void>;
  /** the service's database, for setting up what no request can (a file received days ago) */
  db: Database;
  close(): Promise<void>;
}

/** `logs`: every line the service logs is pushed here (then it logs at `trace`) */
export async function startDashboardApp(overrides: Partial<Config> = {}, opts: { logs?: string[] } = {}): Promise<DashboardApp> {
  const config = testConfig({
    roles: ['api', 'worker'],
    intakeMatchWindowMs: 0,
    intakeBackoffMs: 10,
    ...(opts.logs ? { logLevel: 'trace' } : {}),
    ...overrides,
  });
  const db: Database = await openTestDatabase();
  const sink =
    opts.logs &&
    new Writable({
      write(chunk, _enc, done) {
        opts.logs!.push(String(chunk));
        done();
      },
    });
  const svc = await startService(config, createLogger(config.logLevel, sink), { db });
  const url = svc.apiUrl!;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const client = httpClient(url);
  const api: DashboardApp['api'] = (method, path, o = {}) =>
    client(method, path, { key: o.auth === 'admin' ? config.adminToken : o.auth, body: o.body, headers: o.headers });
  const app: DashboardApp = {
    svc,
    config,
    url,
    browser,
    api,
    db,
    async account() {
      const res = await api('POST', '/admin/accounts', { auth: 'admin', body: { name: `Acme ${randomToken(4)}` } });
      if (res.status !== 201) throw new Error(`account: ${res.status}`);
      return res.body;
    },
    async person(accountId, page, email = `p${randomToken(8).toLowerCase()}@example.com`) {
      const password = `pw-${randomToken(16)}`;
      const invite = await api('POST', `/admin/accounts/${accountId}/users`, { auth: 'admin', body: { email } });
      if (invite.status !== 201) throw new Error(`invite: ${invite.status}`);
      await page.goto(invite.body.inviteUrl.replace(/^https?:\/\/[^/]+/, url));
      await page.getByLabel('New password').fill(password);
      await page.getByLabel('Repeat the password').fill(password);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByText('Your password is set').waitFor();
      return { email, password };
    },
    async signIn(page, who) {
      await page.goto(`${url}/dashboard/sign-in`);
      await page.locator('#email').fill(who.email);
      await page.locator('#password').fill(who.password);
      await page.locator('form[action="/dashboard/sign-in"] button[type=submit]').click();
      await page.waitForURL(/\/dashboard$/);
      await timeZoneReported(page);
    },
    async close() {
      await browser.close();
      await svc.stop();
      await db.close();
    },
  };
  return app;
}

/** RFC 6238 (SHA-1, 6 digits, 30 s) from the base32 key, as an authenticator app computes it */
/**
 * After a sign-in, the first page reports the browser's time zone and shows itself again: a page
 * asked for (or a link clicked) before that reload may be interrupted or replaced by it. This
 * waits for the reloaded page.
 */
export const timeZoneReported = (page: Page) => page.locator('body[data-tz]:not([data-tz=""])').waitFor();

export function totp(base32: string, at = Date.now()): string {
  const bits = [...base32].map((ch) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(ch).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const h = createHmac('sha1', key).update(counter).digest();
  return String((h.readUInt32BE(h[19] & 15) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}
