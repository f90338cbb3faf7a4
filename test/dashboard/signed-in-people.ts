// The people most dashboard tests start from: an owner the operator invited and a member that owner
// invited, each past the invite page and signed in over HTTP (form clients).
import { expect } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import type { DashboardApp } from './dashboard-harness.ts';
import { formClient, type FormClient } from './form-client.ts';

interface Person {
  id: string;
  email: string;
  password: string;
  web: FormClient;
}

const who = (letter: string) => ({ email: `${letter}${randomToken(8).toLowerCase()}@example.com`, password: `pw-${randomToken(16)}` });

export async function ownerAndMember(t: DashboardApp, accountId: string): Promise<{ owner: Person; member: Person }> {
  const o = who('o');
  const invite = await t.api('POST', `/admin/accounts/${accountId}/users`, { auth: 'admin', body: { email: o.email } });
  await t.svc.container.users.acceptInvite(invite.body.inviteUrl.split('/').pop(), o.password);
  const owner = { id: invite.body.id as string, ...o, web: formClient(t.url) };
  expect((await owner.web.signIn(o)).headers.location).toBe('/dashboard');
  // the owner invites a colleague, who becomes a member
  const m = who('m');
  await owner.web.get('/dashboard/people');
  await owner.web.post('/dashboard/people', { email: m.email });
  const link = /id="invite-link"[^>]*>([^<]+)</.exec((await owner.web.get('/dashboard/people')).body)![1];
  await t.svc.container.users.acceptInvite(link.split('/').pop()!, m.password);
  const web = formClient(t.url);
  expect((await web.signIn(m)).headers.location).toBe('/dashboard');
  const id = (await t.svc.container.users.list(accountId)).find((u) => u.email === m.email)!.id;
  return { owner, member: { id, ...m, web } };
}
