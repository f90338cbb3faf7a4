// The SFTP channel's limits on the real service: connections per account (TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT)
// and in total (SFTP_MAX_CONNECTIONS), idle sessions closed after SFTP_IDLE_TIMEOUT_MS, and
// temporary uploads dropped when not renamed within TRANSFER_TEMP_UPLOAD_HOLD_MS.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { bigPdf, connectSftp, readdir, refusal, rename, startSftpApp, writeFile, type Connected, type SftpApp } from './sftp-harness.ts';

let app: SftpApp;

beforeAll(async () => {
  app = await startSftpApp({ transferMaxConnectionsPerAccount: 2, sftpMaxConnections: 3, sftpIdleTimeoutMs: 1500, transferTempUploadHoldMs: 2000 });
});
afterAll(async () => app?.close());

const login = (a: FtpAccount) => connectSftp(app.sftpPort, { username: a.ftpUsername, password: a.liveKey });
const isClosed = (c: Connected) => Boolean((c.client as any)._sock?.destroyed ?? true);
const closed = (c: Connected) => vi.waitFor(() => expect(isClosed(c)).toBe(true), { timeout: 10_000 });

describe('connection limits', () => {
  it('at most TRANSFER_MAX_CONNECTIONS_PER_ACCOUNT sessions per account, and SFTP_MAX_CONNECTIONS in total', async () => {
    const [a, b] = [await app.ftpAccount(), await app.ftpAccount()];
    const before = await app.counters('sftp');
    const first = await login(a);
    const second = await login(a);
    // the login of a third is refused (and logged with the reason)
    await expect(login(a)).rejects.toThrow();
    expect(app.logLines.some((l) => l.includes('sftp login refused') && l.includes('too many connections for the account'))).toBe(true);
    await expect.poll(() => app.gauge('connections', 'sftp')).toBe(2);
    const third = await login(b);
    // three connections open: a fourth is turned away before it can log in
    await expect(login(b)).rejects.toThrow();
    expect((await app.counters('sftp')).connectionsRefused).toBe(before.connectionsRefused + 2);
    first.client.end();
    await closed(first);
    // room again, for the account and in total
    await vi.waitFor(async () => (await login(a)).client.end(), { timeout: 10_000 });
    for (const c of [second, third]) c.client.end();
  });
});

describe('idle sessions', () => {
  it('a session without requests is closed after SFTP_IDLE_TIMEOUT_MS; one that keeps asking is not', async () => {
    const a = await app.ftpAccount();
    const started = Date.now();
    const idle = await login(a);
    const busy = await login(a);
    while (!isClosed(idle)) {
      await readdir(busy.sftp);
      if (Date.now() - started > 10_000) throw new Error('the idle session was not closed within 10 s');
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(app.logLines.some((l) => l.includes('sftp session idle: closing'))).toBe(true);
    await expect(readdir(busy.sftp)).resolves.toBeDefined();
    busy.client.end();
  });
});

describe('temporary uploads', () => {
  it('one not renamed within TRANSFER_TEMP_UPLOAD_HOLD_MS is dropped: gone from the listing, nothing received', async () => {
    const a = await app.ftpAccount();
    const c = await login(a);
    await writeFile(c.sftp, 'late.pdf.filepart', await bigPdf(1000));
    expect((await readdir(c.sftp)).map((e) => e.filename)).toContain('late.pdf.filepart');
    await expect.poll(async () => (await readdir(c.sftp)).map((e) => e.filename), { timeout: 10_000 }).not.toContain('late.pdf.filepart');
    expect((await refusal(rename(c.sftp, 'late.pdf.filepart', 'late.pdf'))).code).toBe(2);
    c.client.end();
    expect(app.logLines.some((l) => l.includes('sftp temporary upload never renamed: dropped') && l.includes('late.pdf.filepart'))).toBe(true);
    expect(await app.imports(a.liveKey)).toEqual([]);
  });
});
