// SFTP edge cases through ssh2's own client against the real service: logins (wrong password,
// rotated key, test key, lockout shared with FTP), what the flat directory refuses, the size cap,
// a client that disconnects mid-upload, parallel uploads, and the listing of another account.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSftpRole } from '../../src/app/sftp-role.ts';
import type { ReadinessCheck } from '../../src/http/routes/health.ts';
import { TransferMetrics, transferReadings } from '../../src/channels/transfer/transfer-metrics.ts';
import { failingIntake } from '../ftp/failing-intake.ts';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { loginFrom } from '../ftp/raw-ftp.ts';
import { admin, bigPdf, close, connectSftp, open, readdir, readFile, refusal, rename, startSftpApp, write, writeFile, type SftpApp } from './sftp-harness.ts';

let app: SftpApp;
let account: FtpAccount;

beforeAll(async () => {
  app = await startSftpApp({ transferLockoutAttempts: 3, transferLockoutMs: 60_000 });
  account = await app.ftpAccount();
});
afterAll(async () => app?.close());

const login = (a: FtpAccount, password = a.liveKey, from?: string) => connectSftp(app.sftpPort, { username: a.ftpUsername, password }, from);
const importNamed = async (key: string, name: string) => (await app.imports(key)).filter((r) => r.filename === name);

describe('logins', () => {
  it('refuses a wrong password and a live key of another account', async () => {
    const other = await app.ftpAccount();
    await expect(login(account, `${account.liveKey}x`, '127.0.0.11')).rejects.toThrow(/authentication/i);
    await expect(login(account, other.liveKey, '127.0.0.11')).rejects.toThrow(/authentication/i);
  });

  it('the test key opens test mode: the upload is a test-mode import', async () => {
    const fresh = await app.ftpAccount();
    const invoice = await app.invoice(fresh.testKey);
    const { client, sftp } = await login(fresh, fresh.testKey);
    await writeFile(sftp, `${invoice.invoiceNumber}.pdf`, await bigPdf(5000));
    client.end();
    expect((await app.waitFor(fresh.testKey, (await importNamed(fresh.testKey, `${invoice.invoiceNumber}.pdf`))[0].id)).status).toBe('attached');
    expect(await importNamed(fresh.liveKey, `${invoice.invoiceNumber}.pdf`)).toEqual([]);
  });

  it("a rotated key ends its mode's sessions at their next operation, also an upload under way, and no longer logs in", async () => {
    const fresh = await app.ftpAccount();
    const live = await login(fresh);
    const streaming = await login(fresh);
    const test = await login(fresh, fresh.testKey);
    const pdf = await bigPdf(3000);
    const handle = await open(streaming.sftp, 'streaming.pdf', 'w');
    await write(streaming.sftp, handle, pdf, 0);
    const rotated = await admin(app, 'POST', `/admin/accounts/${fresh.id}/keys/live`);
    expect(rotated.status).toBe(201);
    expect((await refusal(writeFile(live.sftp, 'late.pdf', pdf))).message).toMatch(/The key was replaced or removed/);
    expect((await refusal(close(streaming.sftp, handle))).message).toMatch(/The key was replaced or removed, or the account disabled: nothing was received/);
    for (const c of [live, streaming]) await vi.waitFor(() => expect((c.client as any)._sock?.destroyed ?? true).toBe(true));
    expect(await importNamed(rotated.body.key, 'streaming.pdf')).toEqual([]);
    await expect(readdir(test.sftp)).resolves.toBeDefined();
    test.client.end();
    await expect(login(fresh, fresh.liveKey, '127.0.0.12')).rejects.toThrow(/authentication/i);
    const again = await login(fresh, rotated.body.key);
    again.client.end();
  });

  it('disabling the account ends its open sessions at their next operation; enabling lets it log in again', async () => {
    const fresh = await app.ftpAccount();
    const live = await login(fresh);
    const test = await login(fresh, fresh.testKey);
    expect((await admin(app, 'PATCH', `/admin/accounts/${fresh.id}`, { disabled: true })).status).toBe(200);
    const pdf = await bigPdf(10);
    for (const c of [live, test]) {
      expect((await refusal(writeFile(c.sftp, 'late.pdf', pdf))).message).toMatch(/or the account disabled/);
      await vi.waitFor(() => expect((c.client as any)._sock?.destroyed ?? true).toBe(true));
    }
    await expect(login(fresh, fresh.liveKey, '127.0.0.13')).rejects.toThrow(/authentication/i);
    expect((await admin(app, 'PATCH', `/admin/accounts/${fresh.id}`, { disabled: false })).status).toBe(200);
    const again = await login(fresh, fresh.liveKey, '127.0.0.13');
    again.client.end();
  });

  it('locks out after repeated failures, shared with FTP: the right key is refused on both', async () => {
    const fresh = await app.ftpAccount();
    const before = await app.counters('sftp');
    for (let i = 0; i < 3; i++) await expect(login(fresh, 'wrong', '127.0.0.21')).rejects.toThrow();
    expect((await app.counters('sftp')).lockouts).toBeGreaterThan(before.lockouts);
    await expect(login(fresh, fresh.liveKey, '127.0.0.22')).rejects.toThrow(/authentication/i);
    expect(await loginFrom(app.port, fresh.ftpUsername, fresh.liveKey, '127.0.0.23')).toMatch(/^530/);
    expect((await app.counters('sftp')).loginsRefusedLockedOut).toBeGreaterThan(before.loginsRefusedLockedOut);
  });

  it('refuses shell, exec and port forwarding', async () => {
    const { client } = await login(account);
    const exec = await new Promise<Error | undefined>((resolve) => client.exec('id', (err) => resolve(err)));
    expect(exec?.message).toMatch(/unable|denied|fail/i);
    const shell = await new Promise<Error | undefined>((resolve) => client.shell((err) => resolve(err)));
    expect(shell?.message).toMatch(/unable|denied|fail/i);
    const forward = await new Promise<Error | undefined>((resolve) => client.forwardOut('127.0.0.1', 1, '127.0.0.1', app.port, (err) => resolve(err)));
    expect(forward?.message).toMatch(/unable|denied|prohibited|fail/i);
    const listen = await new Promise<Error | undefined>((resolve) => client.forwardIn('127.0.0.1', 0, (err) => resolve(err)));
    expect(listen).toBeInstanceOf(Error);
    client.end();
  });
});

describe('the flat directory', () => {
  it('refuses traversal names, links and mkdir; a received file is not deleted by a remove', async () => {
    const { client, sftp } = await login(account);
    const pdf = await bigPdf(1000);
    for (const name of ['../x.pdf', 'sub/x.pdf', '/etc/x.pdf', '..\\x.pdf', 'x.txt']) {
      expect((await refusal(writeFile(sftp, name, pdf))).code, name).toBe(3);
    }
    expect((await refusal(new Promise((res, rej) => sftp.mkdir('sub', (e) => (e ? rej(e) : res(undefined)))))).code).toBe(3);
    expect((await refusal(new Promise((res, rej) => sftp.symlink('a.pdf', 'b.pdf', (e) => (e ? rej(e) : res(undefined)))))).code).toBe(3);
    const invoice = await app.invoice(account.liveKey);
    await writeFile(sftp, `${invoice.invoiceNumber}.pdf`, pdf);
    // a received file is never deleted: a remove is taken as "about to be replaced" (WinSCP's sequence)
    await new Promise((res, rej) => sftp.unlink(`${invoice.invoiceNumber}.pdf`, (e) => (e ? rej(e) : res(undefined))));
    expect(await importNamed(account.liveKey, `${invoice.invoiceNumber}.pdf`)).toHaveLength(1);
    expect((await refusal(new Promise((res, rej) => sftp.unlink('missing.pdf', (e) => (e ? rej(e) : res(undefined)))))).code).toBe(2);
    expect((await refusal(readFile(sftp, `${invoice.invoiceNumber}.pdf`))).code).toBe(3);
    expect(await new Promise((res) => sftp.realpath('../../etc', (_e, p) => res(p)))).toBe('/');
    client.end();
  });

  it('a temporary name renamed to .pdf is received once; a failure shows its .error.txt', async () => {
    const { client, sftp } = await login(account);
    const invoice = await app.invoice(account.liveKey);
    await writeFile(sftp, `${invoice.invoiceNumber}.pdf.filepart`, await bigPdf(2000));
    expect(await importNamed(account.liveKey, `${invoice.invoiceNumber}.pdf`)).toEqual([]);
    await rename(sftp, `${invoice.invoiceNumber}.pdf.filepart`, `${invoice.invoiceNumber}.pdf`);
    await expect.poll(async () => (await importNamed(account.liveKey, `${invoice.invoiceNumber}.pdf`))[0]?.status).toBe('attached');
    await writeFile(sftp, 'garbage.pdf', Buffer.from('not a pdf at all'));
    await expect.poll(async () => (await readdir(sftp)).map((e) => e.filename)).toContain('garbage.pdf.error.txt');
    const listing = await readdir(sftp);
    expect(listing.find((e) => e.filename === `${invoice.invoiceNumber}.pdf`)?.longname).toMatch(/ attached +live /);
    expect((await readFile(sftp, 'garbage.pdf.error.txt')).toString()).toMatch(/Reason: /);
    client.end();
  });

  it("another account's uploads are not listed and cannot be read", async () => {
    const other = await app.ftpAccount();
    const o = await login(other);
    await writeFile(o.sftp, 'secret-of-other.pdf', Buffer.from('nope'));
    await expect.poll(async () => (await readdir(o.sftp)).map((e) => e.filename)).toContain('secret-of-other.pdf.error.txt');
    o.client.end();
    const { client, sftp } = await login(account);
    expect((await readdir(sftp)).map((e) => e.filename)).not.toContain('secret-of-other.pdf');
    expect((await refusal(readFile(sftp, 'secret-of-other.pdf.error.txt'))).code).toBe(2);
    client.end();
  });
});

describe('uploads', () => {
  it('the close is answered OK only once the file is staged: its record exists when the client hears it', async () => {
    const { client, sftp } = await login(account);
    await writeFile(sftp, 'staged-at-close.pdf', await bigPdf(1000));
    expect(await importNamed(account.liveKey, 'staged-at-close.pdf')).toHaveLength(1);
    client.end();
  });

  it('refuses a file over 5 MB while it streams, and receives nothing', async () => {
    const { client, sftp } = await login(account);
    const before = await app.counters('sftp');
    const refused = await refusal(writeFile(sftp, 'huge.pdf', Buffer.alloc(5 * 1024 * 1024 + 1, 1)));
    expect(refused.message).toMatch(/is larger than 5242880 bytes \(5 MB\): refused, nothing was received/);
    expect((await app.counters('sftp')).uploadsRefusedTooLarge).toBe(before.uploadsRefusedTooLarge + 1);
    expect(await importNamed(account.liveKey, 'huge.pdf')).toEqual([]);
    client.end();
  });

  it('a client that disconnects mid-upload leaves nothing behind', async () => {
    const { client, sftp } = await login(account);
    const before = await app.counters('sftp');
    const h = await open(sftp, 'half.pdf', 'w');
    await write(sftp, h, (await bigPdf(50_000)).subarray(0, 30_000), 0);
    client.end();
    await expect.poll(async () => (await app.counters('sftp')).uploadsAborted).toBe(before.uploadsAborted + 1);
    expect(await importNamed(account.liveKey, 'half.pdf')).toEqual([]);
  });

  it('20 parallel uploads are each attached once', async () => {
    const invoices = await Promise.all(Array.from({ length: 20 }, () => app.invoice(account.liveKey)));
    const conns = await Promise.all([0, 1, 2, 3].map(() => login(account)));
    const pdf = await bigPdf(30_000);
    await Promise.all(invoices.map((inv, i) => writeFile(conns[i % 4].sftp, `${inv.invoiceNumber}.pdf`, Buffer.concat([pdf, Buffer.from(`% ${i}\n`)]))));
    for (const c of conns) c.client.end();
    for (const inv of invoices) {
      await expect
        .poll(async () => (await importNamed(account.liveKey, `${inv.invoiceNumber}.pdf`)).map((r) => r.status), { timeout: 20_000 })
        .toEqual(['attached']);
      expect((await app.documentsOf(inv.id)).filter((d) => !d.deleted_at)).toHaveLength(1);
    }
  });
});

describe('intake unavailable', () => {
  it('a file that cannot be staged gets an error at its close, not OK; a temporary upload whose rename fails stays held; a stopped server is not ready', async () => {
    const metrics = new TransferMetrics('sftp');
    const readiness = new Map<string, ReadinessCheck>();
    const channel = await startSftpRole(app.svc.container, failingIntake(app.svc.container.intake), { metrics, readiness });
    try {
      await expect(readiness.get('sftp')!()).resolves.toBeUndefined();
      const fresh = await app.ftpAccount();
      const { client, sftp } = await connectSftp(channel.port, { username: fresh.ftpUsername, password: fresh.liveKey });
      expect((await refusal(writeFile(sftp, 'unstaged.pdf', await bigPdf(1000)))).message).toMatch(/could not be stored right now/);
      await writeFile(sftp, 'later.pdf.filepart', await bigPdf(1000));
      expect((await refusal(rename(sftp, 'later.pdf.filepart', 'later.pdf'))).code).toBe(4);
      expect((await readdir(sftp)).map((e) => e.filename)).toContain('later.pdf.filepart');
      client.end();
      expect(await transferReadings(metrics.registry, 'sftp').value('uploadsStagingFailed')).toBe(1);
      expect(await app.imports(fresh.liveKey)).toEqual([]);
    } finally {
      await channel.stop();
    }
    // a stopped (or draining) server is not ready
    await expect(readiness.get('sftp')!()).rejects.toThrow(/not listening/);
  });
});
