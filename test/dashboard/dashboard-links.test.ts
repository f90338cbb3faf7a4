// Links the service sends are built on PUBLIC_URL (or, unset, on the API's own loopback address),
// never on the request's Host header: a password reset asked for with `Host: attacker.example`
// must not e-mail the victim a link to the attacker. Invites (the admin API's and an owner's from
// the dashboard) likewise. The session cookie is Secure whenever PUBLIC_URL is https. Real
// service over real HTTP, a real SMTP receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import { formClient } from './form-client.ts';

const FORGED = { host: 'attacker.example' };
const PUBLIC = 'https://dash.example.test';
let smtp: SmtpSink;
let local: DashboardApp;
let behindProxy: DashboardApp;

beforeAll(async () => {
  smtp = await startSmtpSink();
  local = await startDashboardApp({ smtpUrl: smtp.url });
  behindProxy = await startDashboardApp({ smtpUrl: smtp.url, publicUrl: `${PUBLIC}/` });
});
afterAll(async () => {
  await local?.close();
  await behindProxy?.close();
  await smtp?.close();
});

const address = () => `p${randomToken(8).toLowerCase()}@example.com`;
/** a person of a fresh account with a password, invited by the operator (an owner) */
async function owner(t: DashboardApp) {
  const acct = await t.account();
  const email = address();
  const invite = await t.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email } });
  const password = `pw-${randomToken(16)}`;
  await t.svc.container.users.acceptInvite(invite.body.inviteUrl.split('/').pop(), password);
  return { acct, email, password };
}
const linkIn = async (to: string, subject: RegExp) => {
  await expect.poll(() => smtp.to(to).filter((m) => subject.test(m.parsed.subject ?? '')).length).toBe(1);
  const text = smtp.to(to).find((m) => subject.test(m.parsed.subject ?? ''))!.parsed.text ?? '';
  expect(text).not.toContain('attacker');
  return /https?:\/\/\S+\/dashboard\/(invite|reset)\/\w+/.exec(text)![0];
};

describe('links sent by mail or shown for copying', () => {
  it("a reset asked for with a forged Host e-mails a link on the API's own address (PUBLIC_URL unset, loopback)", async () => {
    const who = await owner(local);
    const web = formClient(local.url, FORGED);
    await web.get('/dashboard/reset');
    expect((await web.post('/dashboard/reset', { email: who.email })).status).toBe(303);
    const link = await linkIn(who.email, /new password/i);
    expect(link.startsWith(`${local.url}/dashboard/reset/`)).toBe(true);
    expect(local.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("invites with a forged Host: the admin API's inviteUrl, its e-mail, and an owner's invite from the dashboard", async () => {
    const acct = await local.account();
    const email = address();
    const invite = await local.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email }, headers: FORGED });
    expect(invite.status).toBe(201);
    expect(invite.body.inviteUrl.startsWith(`${local.url}/dashboard/invite/`)).toBe(true);
    expect(await linkIn(email, /invit/i)).toBe(invite.body.inviteUrl);

    const who = await owner(local);
    const web = formClient(local.url, FORGED);
    expect((await web.signIn(who)).headers.location).toBe('/dashboard');
    await web.get('/dashboard/people');
    const colleague = address();
    expect((await web.post('/dashboard/people', { email: colleague })).status).toBe(303);
    const mailed = await linkIn(colleague, /invit/i);
    expect(mailed.startsWith(`${local.url}/dashboard/invite/`)).toBe(true);
    const shown = /id="invite-link"[^>]*>([^<]+)</.exec((await web.get('/dashboard/people')).body)?.[1];
    expect(shown).toBe(mailed);
  });

  it("with PUBLIC_URL: the reset link and the admin API's inviteUrl are on it, whatever Host says", async () => {
    const who = await owner(behindProxy);
    const web = formClient(behindProxy.url, FORGED);
    await web.get('/dashboard/reset');
    await web.post('/dashboard/reset', { email: who.email });
    expect((await linkIn(who.email, /new password/i)).startsWith(`${PUBLIC}/dashboard/reset/`)).toBe(true);
    const invite = await behindProxy.api('POST', `/admin/accounts/${who.acct.id}/users`, { auth: 'admin', body: { email: address() }, headers: FORGED });
    expect(invite.body.inviteUrl).toMatch(new RegExp(`^${PUBLIC.replace(/\./g, '\\.')}/dashboard/invite/\\w{40}$`));
  });

  it('the session cookie is Secure when PUBLIC_URL is https, even when the request reached the service over plain HTTP (TLS ended before it)', async () => {
    const who = await owner(behindProxy);
    const res = await formClient(behindProxy.url).signIn(who);
    expect(res.headers.location).toBe('/dashboard');
    const session = [res.headers['set-cookie']].flat().find((c) => c?.startsWith('ii_session='));
    expect(session).toMatch(/; Secure/);
    // and the API's own loopback address over HTTP keeps it usable without TLS
    const plain = await formClient(local.url).signIn(await owner(local));
    expect([plain.headers['set-cookie']].flat().find((c) => c?.startsWith('ii_session='))).not.toMatch(/; Secure/);
  });
});
