// Account users through the admin API and the CLI: invite (one-time link, e-mailed with
// SMTP_URL), list, remove; the invite sets a password once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let smtp: SmtpSink;
let a: TestAccount;
const admin = () => ({ authorization: `Bearer ${t.adminToken}` });
const token = (inviteUrl: string) => inviteUrl.split('/').pop()!;

beforeAll(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ config: { smtpUrl: smtp.url, publicUrl: 'https://dash.example.com' } });
  a = await t.createAccount();
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

describe('admin API: account users', () => {
  it('invites with a one-time link (also e-mailed), lists, and removes; removal ends the sessions', async () => {
    const res = await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'Ann@Example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'Ann@Example.com',
      inviteUrl: expect.stringMatching(/^https:\/\/dash\.example\.com\/dashboard\/invite\/\w{40}$/),
    });
    await expect.poll(() => smtp.to('Ann@Example.com').length).toBe(1);
    expect(smtp.to('Ann@Example.com')[0].parsed.text).toContain(res.body.inviteUrl);

    const list = await t.request('GET', `/admin/accounts/${a.id}/users`, { headers: admin() });
    expect(list.body.users).toEqual([{ id: res.body.id, email: 'Ann@Example.com', status: 'invited', createdAt: expect.any(String) }]);

    expect(await t.c.users.inviteEmail(token(res.body.inviteUrl))).toBe('Ann@Example.com');
    await t.c.users.acceptInvite(token(res.body.inviteUrl), 'correct horse battery');
    await expect(t.c.users.acceptInvite(token(res.body.inviteUrl), 'another password!')).rejects.toMatchObject({ kind: 'gone' });
    const user = await t.c.users.verify('ann@example.com', 'correct horse battery');
    expect(user?.status).toBe('active');
    // memory-hard: scrypt with N=2^15, r=8 (32 MB per hash), the parameters kept beside the hash
    const [{ password_hash: stored }] = await t.db.query<{ password_hash: string }>('select password_hash from account_users where id = $1', [res.body.id]);
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await t.c.users.verify('ann@example.com', 'wrong password!!')).toBeUndefined();
    const session = await t.c.users.startSession(user!.id);
    expect(await t.c.users.session(session)).toMatchObject({ account_id: a.id, mode: 'live' });

    const del = await t.request('DELETE', `/admin/accounts/${a.id}/users/${res.body.id}`, { headers: admin() });
    expect(del.status).toBe(204);
    expect(await t.c.users.session(session)).toBeUndefined();
    expect((await t.request('GET', `/admin/accounts/${a.id}/users`, { headers: admin() })).body.users).toEqual([]);
    expect((await t.request('DELETE', `/admin/accounts/${a.id}/users/${res.body.id}`, { headers: admin() })).status).toBe(404);
  });

  it('refuses a bad address (400), an unknown account (404), an address of another account (409), no admin token (401)', async () => {
    expect((await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'not an address' } })).body).toMatchObject({
      status: 400,
      field: 'email',
    });
    expect((await t.request('POST', '/admin/accounts/acc_nope/users', { headers: admin(), body: { email: 'x@example.com' } })).status).toBe(404);
    const b = await t.createAccount();
    await t.request('POST', `/admin/accounts/${b.id}/users`, { headers: admin(), body: { email: 'bob@example.com' } });
    const taken = await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'BOB@example.com' } });
    expect(taken.status).toBe(409);
    expect(taken.body.field).toBe('email');
    expect((await t.request('GET', `/admin/accounts/${a.id}/users`)).status).toBe(401);
  });

  it("words the invite e-mail in the language the operator names, else in the request's Accept-Language, else English", async () => {
    const own = await t.createAccount();
    const invite = async (email: string, extra: { language?: string; accept?: string }) => {
      const res = await t.request('POST', `/admin/accounts/${own.id}/users`, {
        headers: { ...admin(), ...(extra.accept ? { 'accept-language': extra.accept } : {}) },
        body: { email, ...(extra.language ? { language: extra.language } : {}) },
      });
      expect(res.status).toBe(201);
      await expect.poll(() => smtp.to(email).length).toBe(1);
      return { mail: smtp.to(email)[0].parsed, url: res.body.inviteUrl as string };
    };
    const de = await invite('gerda@example.com', { language: 'de', accept: 'nl-NL' });
    expect(de.mail.subject).toBe('Ihre Einladung zum invoice-intake-Dashboard');
    expect(de.mail.text).toContain('der Link gilt einmal, 24 Stunden lang');
    expect(de.mail.text).toContain(de.url);
    const nl = await invite('noor@example.com', { accept: 'nl-BE,nl;q=0.9,en;q=0.5' });
    expect(nl.mail.subject).toBe('Uw uitnodiging voor het invoice-intake-dashboard');
    expect((await invite('eric@example.com', {})).mail.subject).toBe('Your invoice-intake dashboard invite');
    const bad = await t.request('POST', `/admin/accounts/${own.id}/users`, { headers: admin(), body: { email: 'x@example.com', language: 'fr' } });
    expect(bad.status).toBe(400);
  });

  it('a new invite for a known person is a password reset: the old link dies, the new one works', async () => {
    const first = await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'carl@example.com' } });
    await t.c.users.acceptInvite(token(first.body.inviteUrl), 'first password 1');
    const again = await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'carl@example.com' } });
    expect(again.body.id).toBe(first.body.id);
    await t.c.users.acceptInvite(token(again.body.inviteUrl), 'second password 2');
    expect(await t.c.users.verify('carl@example.com', 'first password 1')).toBeUndefined();
    expect(await t.c.users.verify('carl@example.com', 'second password 2')).toBeDefined();
  });

  it('an invite link works for 24 hours', async () => {
    const res = await t.request('POST', `/admin/accounts/${a.id}/users`, { headers: admin(), body: { email: 'eve@example.com' } });
    expect(await t.c.users.inviteEmail(token(res.body.inviteUrl))).toBe('eve@example.com');
    const [{ left }] = await t.db.query<{ left: number }>(
      'select extract(epoch from invite_expires_at - now())::int as left from account_users where id = $1',
      [res.body.id],
    );
    expect(left).toBeGreaterThan(24 * 3600 - 60);
    expect(left).toBeLessThanOrEqual(24 * 3600);
    await t.db.query(`update account_users set invite_expires_at = now() - interval '1 second' where id = $1`, [res.body.id]);
    expect(await t.c.users.inviteEmail(token(res.body.inviteUrl))).toBeUndefined(); // the invite page answers 410
    await expect(t.c.users.acceptInvite(token(res.body.inviteUrl), 'too late password')).rejects.toMatchObject({ kind: 'gone' });
  });

  it('`npm run admin -- invite <account-id> <email>` prints the link', async () => {
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const root = path.resolve(import.meta.dirname, '../..');
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/admin.ts', 'invite', a.id, 'dora@example.com'],
        {
          cwd: root,
          env: { PATH: process.env.PATH!, ADMIN_URL: url, ADMIN_TOKEN: t.adminToken },
          timeout: 60_000,
        },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Invited dora@example\.com \(usr_\w+\)/);
    expect(run.stdout).toMatch(/https:\/\/dash\.example\.com\/dashboard\/invite\/\w{40}/);
  });
});
