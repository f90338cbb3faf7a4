// An owner's invite answers the same whatever the address: one that signs in to another account
// is not told apart from a fresh one (no cross-tenant enumeration). Such an invite is held: shown,
// listed and e-mailed like any other, but its link cannot take the person away from their account.
// Real service over real HTTP, a real SMTP receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';
import { formClient, type FormClient } from './form-client.ts';

let t: DashboardApp;
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startDashboardApp({ smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const address = (p: string) => `${p}${randomToken(8).toLowerCase()}@example.com`;
/** the owner of a fresh account, signed in */
async function ownerOfNewAccount(): Promise<{ web: FormClient; accountId: string; email: string; password: string }> {
  const acct = await t.account();
  const email = address('o');
  const invite = await t.api('POST', `/admin/accounts/${acct.id}/users`, { auth: 'admin', body: { email } });
  const password = `pw-${randomToken(16)}`;
  await t.svc.container.users.acceptInvite(invite.body.inviteUrl.split('/').pop(), password);
  const web = formClient(t.url);
  expect((await web.signIn({ email, password })).headers.location).toBe('/dashboard');
  return { web, accountId: acct.id, email, password };
}

/** what the inviting owner sees and what is mailed, with the address and the token taken out */
async function invite(web: FormClient, email: string) {
  const before = smtp.to(email).length; // an operator's invite may have been mailed to it before
  await web.get('/dashboard/people');
  const post = await web.post('/dashboard/people', { email });
  const page = (await web.get('/dashboard/people')).body as string;
  const flash = /<section class="new-key"[\s\S]*?<\/section>/.exec(page)?.[0];
  const row = new RegExp(`<tr data-id="[^"]+">\\s*<td>${email.replace(/\./g, '\\.')}[\\s\\S]*?</tr>`).exec(page)?.[0];
  await expect.poll(() => smtp.to(email).length).toBe(before + 1);
  const mail = smtp.to(email)[before].parsed;
  const link = /id="invite-link"[^>]*>([^<]+)</.exec(page)?.[1] ?? '';
  const normal = (s: string | undefined) =>
    s
      ?.replaceAll(email, 'EMAIL')
      .replace(/\/dashboard\/invite\/\w+/g, '/dashboard/invite/TOKEN')
      .replace(/(usr_|remove-)\w+/g, '$1ID')
      .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf"')
      .replace(/<td>[^<]*\d\d:\d\d<\/td>/g, '<td>TIME</td>'); // per page and per minute
  return { status: post.status, location: post.headers.location, flash: normal(flash), row: normal(row), subject: mail.subject, text: normal(mail.text), link };
}

describe("an owner's invite", () => {
  it('of an address that signs in to another account answers exactly like a fresh address', async () => {
    const elsewhere = await ownerOfNewAccount(); // their address belongs to that account
    const [b, c] = [await ownerOfNewAccount(), await ownerOfNewAccount()];
    const fresh = await invite(b.web, address('f'));
    const taken = await invite(c.web, elsewhere.email);
    expect(fresh.status).toBe(303);
    expect(fresh.flash).toContain('/dashboard/invite/TOKEN');
    expect(fresh.row).toContain('invited');
    const { link: _l1, ...freshSeen } = fresh;
    const { link: _l2, ...takenSeen } = taken;
    expect(takenSeen).toEqual(freshSeen);
    // inviting it again: the same words as for a fresh address invited twice
    await c.web.get('/dashboard/people');
    const again = await c.web.post('/dashboard/people', { email: elsewhere.email });
    expect((await c.web.get(again.headers.location as string)).body).toContain(`${elsewhere.email} has access already.`);

    // the held link tells its owner why it cannot be used, and takes nothing from their account
    const path = taken.link.replace(/^https?:\/\/[^/]+/, '');
    const opened = await formClient(t.url).get(path);
    expect(opened.status).toBe(409);
    expect(opened.body).toContain('signs in to another account');
    expect(opened.body).not.toContain('name="password"');
    const tried = formClient(t.url);
    await tried.get('/dashboard/sign-in');
    expect((await tried.post(path, { password: 'taken over 123', confirm: 'taken over 123' })).status).toBe(409);
    expect((await formClient(t.url).signIn(elsewhere)).headers.location).toBe('/dashboard');
    const theirs = (await t.api('GET', `/admin/accounts/${elsewhere.accountId}/users`, { auth: 'admin' })).body.users;
    expect(theirs.map((u: { email: string }) => u.email)).toEqual([elsewhere.email]);

    // the inviting owner removes the held invite like any other
    const page = (await c.web.get('/dashboard/people')).body as string;
    const id = new RegExp(`<tr data-id="([^"]+)">\\s*<td>${elsewhere.email.replace(/\./g, '\\.')}`).exec(page)![1];
    expect((await c.web.post(`/dashboard/people/${id}/remove`, { confirm: 'yes' })).status).toBe(303);
    const after = (await c.web.get('/dashboard/people')).body as string;
    expect(after).toContain(`${elsewhere.email} no longer has access.`);
    expect(after).not.toContain(`<td>${elsewhere.email}</td>`);
  });
});
