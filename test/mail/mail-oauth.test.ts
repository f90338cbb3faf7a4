// The import mailbox with OAuth 2.0 (IMAP_AUTH=xoauth2), end to end against Dovecot's oauth2
// passdb, whose token introspection asks a token server this test runs (the stand-in for
// Microsoft's and Google's endpoints): client credentials with a secret or a certificate
// (Microsoft 365), a refresh token (Gmail), a token refreshed before it expires, one the server
// refused (NO [AUTHENTICATIONFAILED]) replaced, and a revoked grant shown in the log and /readyz.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startDovecot, type Dovecot } from '../../testkit/dovecot.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { invoiceMail, startMailHarness, until, type MailAccount, type MailHarness } from './mail-harness.ts';
import { startTokenServer, type TokenServer } from './oauth-token-server.ts';

const CLIENT_ID = 'intake-app-0b1c';
const CLIENT_SECRET = `secret-${Math.random().toString(36).slice(2)}`;
let ts: TokenServer;
let h: MailHarness;
let gmail: Dovecot;
let acct: MailAccount;
let certDir: string;
let seq = 0;

beforeAll(async () => {
  certDir = mkdtempSync(path.join(tmpdir(), 'ii-oauth-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'app.key', '-out', 'app.crt', '-days', '2', '-subj', '/CN=intake-app'], {
    cwd: certDir,
    stdio: 'ignore',
  });
  ts = await startTokenServer({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    cert: readFileSync(path.join(certDir, 'app.crt'), 'utf8'),
    username: 'importer',
  });
  // Exchange Online offers XOAUTH2; Gmail offers both (imapflow then takes OAUTHBEARER)
  h = await startMailHarness({ dovecot: { oauth2: { introspectionUrl: ts.introspectionUrl, mechanisms: ['xoauth2'] } } });
  gmail = await startDovecot({ oauth2: { introspectionUrl: ts.introspectionUrl, mechanisms: ['oauthbearer', 'xoauth2'] } });
  acct = await h.account();
});
afterAll(async () => {
  await h?.close();
  await gmail?.stop();
  await ts?.close();
  rmSync(certDir, { recursive: true, force: true });
});

const tokenUrl = (d: Dovecot, box: string) => `imap://importer@127.0.0.1:${d.port}/${box}`;
const microsoft = (box: string, extra: Partial<Config> = {}): Partial<Config> => ({
  imapUrl: tokenUrl(h.dovecot, box),
  imapAuth: 'xoauth2',
  imapOauthTokenUrl: ts.tokenUrl,
  imapOauthClientId: CLIENT_ID,
  imapOauthClientSecret: CLIENT_SECRET,
  mailProcessedMailbox: `${box}Done`,
  mailFailedMailbox: `${box}Failed`,
  ...extra,
});
/** The mailbox the poller reads must exist before it logs in (its SELECT fails otherwise). */
async function mailbox(box: string): Promise<string> {
  const c = await h.dovecot.client();
  await c.mailboxCreate(box).catch(() => {});
  return box;
}
const kick = (d: Dovecot) => execFileSync('doveadm', ['-c', path.join(d.dir, 'dovecot.conf'), 'kick', 'importer'], { stdio: 'ignore' });
const dovecotLog = (d: Dovecot) => readFileSync(path.join(d.dir, 'dovecot.log'), 'utf8');

async function mailInvoice(d: Dovecot, box: string): Promise<{ id: string; invoiceId: string }> {
  const inv = await h.invoice(acct.liveKey);
  const id = `<oauth-${Date.now().toString(36)}-${seq++}@test.example>`;
  await d.append(invoiceMail(acct.live, [{ filename: `${inv.invoiceNumber}.pdf`, content: await makePdf(inv.invoiceNumber) }], { messageId: id }), box);
  return { id, invoiceId: inv.id };
}
async function attached(m: { id: string; invoiceId: string }) {
  const { records } = await h.settledRecords(m.id);
  expect(records).toEqual([expect.objectContaining({ status: 'attached', invoiceId: m.invoiceId })]);
}
function noSecretsLogged() {
  const all = h.logs.join('\n');
  for (const secret of [
    CLIENT_SECRET,
    ts.refreshToken,
    ...ts.issued.map((t) => t.token),
    ...ts.requests.flatMap((r) => [r.refresh_token, r.client_assertion]).filter(Boolean),
  ]) {
    expect(all.includes(secret), 'a token or secret in the log').toBe(false);
  }
}

describe('IMAP_AUTH=xoauth2', () => {
  it('Microsoft 365: client credentials with a secret, XOAUTH2; nothing secret in the log', async () => {
    const role = h.startPoller(microsoft(await mailbox('Secret')));
    const m = await mailInvoice(h.dovecot, 'Secret');
    await attached(m);
    expect(ts.requests[0]).toMatchObject({ grant_type: 'client_credentials', client_id: CLIENT_ID, scope: 'https://outlook.office365.com/.default' });
    expect(dovecotLog(h.dovecot)).toMatch(/Login: user=<importer>, method=XOAUTH2/);
    expect(h.logs.some((l) => l.includes('IMAP OAuth access token obtained'))).toBe(true);
    noSecretsLogged();
    await role.stop();
  });

  it('Microsoft 365: client credentials with a certificate (signed client assertion)', async () => {
    const before = ts.requests.length;
    const role = h.startPoller(
      microsoft(await mailbox('Cert'), {
        imapOauthClientSecret: undefined,
        imapOauthClientCert: path.join(certDir, 'app.crt'),
        imapOauthClientKey: path.join(certDir, 'app.key'),
      }),
    );
    await attached(await mailInvoice(h.dovecot, 'Cert'));
    const request = ts.requests[before];
    expect(request.client_secret).toBeUndefined();
    expect(request.client_assertion_type).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    noSecretsLogged();
    await role.stop();
  });

  it('refreshes a token before it expires: a reconnect after its lifetime logs in with a new one, and no message is lost', async () => {
    ts.lifetimeSeconds = 2;
    const issued = ts.issued.length;
    const role = h.startPoller(microsoft(await mailbox('Expiry')));
    await until(() => role.poller.stats.connects === 1, 15_000, 'the first login');
    await attached(await mailInvoice(h.dovecot, 'Expiry'));
    const first = ts.issued[issued];
    await until(() => Date.now() > first.expiresAt, 10_000, 'the first token to expire');
    kick(h.dovecot);
    const m = await mailInvoice(h.dovecot, 'Expiry'); // arrives while the poller reconnects
    await until(() => role.poller.stats.connects === 2, 15_000, 'the reconnect');
    await attached(m);
    expect(ts.issued.length).toBe(issued + 2);
    // the new token was fetched before the login, not after a refusal
    expect(h.logs.some((l) => l.includes('IMAP refused the OAuth access token'))).toBe(false);
    ts.lifetimeSeconds = 3600;
    await role.stop();
  });

  it('after NO [AUTHENTICATIONFAILED] for a token it thought valid, fetches a new one and logs in', async () => {
    const role = h.startPoller(microsoft(await mailbox('Refused')));
    await until(() => role.poller.stats.connects === 1, 15_000, 'the first login');
    const issued = ts.issued.length;
    ts.revoke(ts.issued[issued - 1].token);
    kick(h.dovecot);
    await until(() => role.poller.stats.connects === 2, 30_000, 'the login with a new token');
    expect(ts.issued.length).toBe(issued + 1);
    expect(h.logs.some((l) => l.includes('IMAP refused the OAuth access token: fetching a new one'))).toBe(true);
    await attached(await mailInvoice(h.dovecot, 'Refused'));
    noSecretsLogged();
    await role.stop();
  });

  it('Gmail: a refresh token (rotated when the provider sends a new one), OAUTHBEARER where offered', async () => {
    const refresh = ts.refreshToken;
    ts.lifetimeSeconds = 2;
    const role = h.startPoller({
      imapUrl: tokenUrl(gmail, 'INBOX'),
      imapAuth: 'xoauth2',
      imapOauthTokenUrl: ts.tokenUrl,
      imapOauthClientId: CLIENT_ID,
      imapOauthClientSecret: CLIENT_SECRET,
      imapOauthRefreshToken: refresh,
      mailProcessedMailbox: 'Done',
      mailFailedMailbox: 'Failed',
    });
    await attached(await mailInvoice(gmail, 'INBOX'));
    expect(ts.requests.at(-1)).toMatchObject({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(dovecotLog(gmail)).toMatch(/Login: user=<importer>, method=OAUTHBEARER/);
    // the provider rotated the refresh token: the next refresh uses the new one
    const rotated = ts.refreshToken;
    expect(rotated).not.toBe(refresh);
    await until(() => Date.now() > ts.issued.at(-1)!.expiresAt, 10_000, 'the token to expire');
    kick(gmail);
    await until(() => role.poller.stats.connects === 2, 15_000, 'the reconnect');
    expect(ts.requests.at(-1)).toMatchObject({ grant_type: 'refresh_token', refresh_token: rotated });
    noSecretsLogged();
    ts.lifetimeSeconds = 3600;
    await role.stop();
  });

  it("a revoked grant: a clear error in the log and in /readyz's mail check", async () => {
    ts.refuseAll = true;
    const lines: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
    const config = testConfig({ roles: ['api', 'mail'], ...microsoft('Revoked'), mailReconnectMinMs: 100, mailReconnectMaxMs: 500 });
    const svc = await startService(config, createLogger('info', sink), { db: h.db });
    try {
      await until(() => lines.some((l) => l.includes('AADSTS70000')), 15_000, 'the refusal in the log');
      const line = JSON.parse(lines.find((l) => l.includes('AADSTS70000'))!);
      expect(line.err).toMatch(/^OAuth token request to 127\.0\.0\.1:\d+ was refused \(HTTP 400, invalid_grant: AADSTS70000/);
      const ready = await fetch(`${svc.apiUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).checks.mail).toMatch(
        /^failing: the IMAP poller is not connected: OAuth token request .* was refused \(HTTP 400, invalid_grant/,
      );
      expect(lines.join('\n')).not.toContain(CLIENT_SECRET);
    } finally {
      await svc.stop();
      ts.refuseAll = false;
    }
  });

  it('refuses a configuration that cannot work, naming every problem', () => {
    expect(() => h.startPoller({ imapUrl: h.dovecot.url('X'), imapAuth: 'xoauth2', imapOauthClientId: undefined })).toThrow(
      /IMAP_URL must not carry a password[\s\S]*needs IMAP_OAUTH_CLIENT_ID[\s\S]*needs IMAP_OAUTH_REFRESH_TOKEN, or IMAP_OAUTH_CLIENT_SECRET[\s\S]*needs IMAP_OAUTH_TENANT/,
    );
  });
});
