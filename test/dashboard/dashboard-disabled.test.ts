// An account the operator disables (PATCH /admin/accounts/{id} {"disabled":true}) loses its
// dashboard at once, as its keys and FTP logins do: its open sessions are refused on every kind
// of route (a page, a document download, a key rotation), its people cannot sign in, and enabled
// again they sign in anew while the old sessions stay dead. Real service over real HTTP.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { newTotpSecret } from '../../src/services/second-factor.ts';
import { startDashboardApp, totp, type DashboardApp } from './dashboard-harness.ts';
import { formClient, type FormClient } from './form-client.ts';

let t: DashboardApp;
beforeAll(async () => {
  t = await startDashboardApp();
});
afterAll(() => t?.close());

async function owner(accountId: string) {
  const email = `p${randomToken(8).toLowerCase()}@example.com`;
  const invite = await t.api('POST', `/admin/accounts/${accountId}/users`, { auth: 'admin', body: { email } });
  const password = `pw-${randomToken(16)}`;
  await t.svc.container.users.acceptInvite(invite.body.inviteUrl.split('/').pop(), password);
  return { email, password };
}
const disable = async (id: string, disabled: boolean) =>
  expect((await t.api('PATCH', `/admin/accounts/${id}`, { auth: 'admin', body: { disabled } })).status).toBe(200);
/** what each kind of dashboard route answers this client */
const routes = async (web: FormClient, fileId: string) => {
  await web.get('/dashboard/settings'); // the CSRF token of the page the form is on
  return {
    page: (await web.get('/dashboard/files')).status,
    download: (await web.get(`/dashboard/files/${fileId}/download`)).status,
    rotate: (await web.post('/dashboard/settings/keys/live', { confirm: 'yes' })).status,
  };
};

describe('a disabled account in the dashboard', () => {
  it('its open session is refused on every route kind, its sign-in too; enabled again, only a fresh sign-in opens it', async () => {
    const acct = await t.account();
    const who = await owner(acct.id);
    const imp = await t.api('POST', '/v2/imports', { auth: acct.liveKey, body: { filename: 'scan.pdf', content: (await makePdf('scan')).toString('base64') } });
    expect(imp.status).toBe(202);
    const web = formClient(t.url);
    expect((await web.signIn(who)).headers.location).toBe('/dashboard');
    const download = await web.get(`/dashboard/files/${imp.body.id}/download`);
    expect([download.status, download.headers['content-type']]).toEqual([200, 'application/pdf']);
    const keyBefore = (await t.svc.container.accounts.keyHints(acct.id)).live;

    await disable(acct.id, true);
    const refused = await routes(web, imp.body.id);
    // a page view goes to the sign-in form; a download and a form post get 401 and nothing else
    expect(refused).toEqual({ page: 303, download: 303, rotate: 401 });
    expect((await web.get('/dashboard/files')).headers.location).toBe('/dashboard/sign-in');
    expect((await t.svc.container.accounts.keyHints(acct.id)).live).toBe(keyBefore); // nothing rotated
    const again = formClient(t.url);
    const signIn = await again.signIn(who);
    expect(signIn.status).toBe(403);
    expect(signIn.body).toContain('This account is disabled');
    expect(again.cookies.has('ii_session')).toBe(false);

    await disable(acct.id, false);
    expect(await routes(web, imp.body.id)).toEqual({ page: 303, download: 303, rotate: 401 }); // the old session stays dead
    const fresh = formClient(t.url);
    expect((await fresh.signIn(who)).headers.location).toBe('/dashboard');
    expect((await fresh.get('/dashboard/files')).status).toBe(200);
    expect((await fresh.get(`/dashboard/files/${imp.body.id}/download`)).status).toBe(200);
  });

  it('with two-step sign-in: the password step passes, the right code then gets the 403 page and no session', async () => {
    const acct = await t.account();
    const who = await owner(acct.id);
    const user = (await t.svc.container.users.list(acct.id))[0];
    const secret = newTotpSecret();
    await t.svc.container.users.enableSecondFactor(user.id, secret, totp(secret));
    await disable(acct.id, true);
    const web = formClient(t.url);
    expect((await web.signIn(who)).headers.location).toBe('/dashboard/sign-in/code');
    await web.get('/dashboard/sign-in/code');
    const code = await web.post('/dashboard/sign-in/code', { code: totp(secret, Date.now() + 30_000) }); // the next step: the one above is used
    expect(code.status).toBe(403);
    expect(code.body).toContain('This account is disabled');
    expect(web.cookies.has('ii_session')).toBe(false);
  });

  it('an open live-list stream ends at its next heartbeat (15 s) once the account is disabled', async () => {
    const acct = await t.account();
    const web = formClient(t.url);
    await web.signIn(await owner(acct.id));
    const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const opened = new Promise<http.IncomingMessage>((resolve) => http.get(`${t.url}/dashboard/events`, { headers: { cookie } }, resolve));
    const stream = await opened;
    expect(stream.statusCode).toBe(200);
    const ended = new Promise<number>((resolve) => stream.on('end', () => resolve(Date.now())).resume());
    await disable(acct.id, true);
    const disabledAt = Date.now();
    expect((await ended) - disabledAt).toBeLessThan(16_000);
  }, 40_000);
});
