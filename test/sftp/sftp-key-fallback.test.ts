// A key-only client whose key is refused falls back to an empty password: curl's sftp (libssh2
// 1.10) signs with an RSA key only in SHA-1 (`ssh-rsa`), which the server refuses. Run more often
// than the lockout allows, those fallbacks must lock nobody out (an empty password is no guess),
// each refused key is logged with its type and the reason, and the right key then logs in.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { admin, run, sshKeygen, startSftpApp, tempDir, type SftpApp } from './sftp-harness.ts';

const ATTEMPTS = 3;
let app: SftpApp;
let dir: string;

beforeAll(async () => {
  app = await startSftpApp({ transferLockoutAttempts: ATTEMPTS, transferLockoutMs: 60_000 });
  dir = tempDir();
});
afterAll(async () => {
  await app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const curlSftp = (port: number, user: string, password: string, file: string, remote: string, extra: string[] = []) =>
  run('curl', ['-sS', '-v', '-k', '--connect-timeout', '10', '--user', `${user}:${password}`, ...extra, '-T', file, `sftp://127.0.0.1:${port}/${remote}`]);

describe('curl sftp with a SHA-1-only RSA key, then a password', () => {
  it('the key is refused and logged with its type and reason; the empty-password fallbacks lock nobody out', async () => {
    const acct = await app.ftpAccount();
    const key = await sshKeygen(dir, 'rsa', 3072);
    expect((await admin(app, 'POST', `/admin/accounts/${acct.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
    const invoice = await app.invoice(acct.liveKey);
    const pdf = path.join(dir, 'curl.pdf');
    fs.writeFileSync(pdf, await makePdf('curl sftp'));

    const before = await app.counters('sftp');
    for (let i = 0; i < ATTEMPTS + 2; i++) {
      const r = await curlSftp(app.sftpPort, acct.ftpUsername, '', pdf, `${invoice.invoiceNumber}.pdf`, ['--key', key.file, '--pubkey', `${key.file}.pub`]);
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/auth|login denied/i);
    }
    const after = await app.counters('sftp');
    expect(after.loginsFailed - before.loginsFailed).toBe(0);
    expect(after.lockouts - before.lockouts).toBe(0);
    const refused = app.logLines.filter((l) => l.includes('sftp key refused') && l.includes(acct.ftpUsername)).map((l) => JSON.parse(l));
    expect(refused.length).toBeGreaterThanOrEqual(ATTEMPTS + 2);
    expect(refused[0]).toMatchObject({ keyType: 'ssh-rsa', reason: expect.stringMatching(/SHA-1.*rsa-sha2-256/) });
    expect(app.logLines.some((l) => l.includes('empty password') && l.includes(acct.ftpUsername))).toBe(true);

    const ok = await curlSftp(app.sftpPort, acct.ftpUsername, acct.liveKey, pdf, `${invoice.invoiceNumber}.pdf`);
    expect(ok.code, ok.stderr).toBe(0);
    await expect
      .poll(async () => (await app.imports(acct.liveKey)).find((i: any) => i.filename === `${invoice.invoiceNumber}.pdf`)?.status, { timeout: 30_000 })
      .toBe('attached');
  }, 120_000);

  it('a wrong password still counts: the lockout is reached', async () => {
    const acct = await app.ftpAccount();
    const pdf = path.join(dir, 'wrong.pdf');
    fs.writeFileSync(pdf, await makePdf('wrong'));
    const before = await app.counters('sftp');
    for (let i = 0; i < ATTEMPTS; i++) expect((await curlSftp(app.sftpPort, acct.ftpUsername, 'not-the-key', pdf, 'x.pdf')).code).not.toBe(0);
    const after = await app.counters('sftp');
    expect(after.loginsFailed - before.loginsFailed).toBe(ATTEMPTS);
    expect(after.lockouts - before.lockouts).toBeGreaterThan(0);
  }, 120_000);
});
