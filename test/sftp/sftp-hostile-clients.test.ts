// Hostile SSH clients before login (issue 49): floods of idle TCP connections and of SSH
// identification lines from one address, and sockets that never identify themselves. Every other
// address keeps being served: OpenSSH's sftp (sshpass) on 127.0.0.1 uploads meanwhile.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flood, limitHits, openedWithin, rawConnect, type Flood } from '../helpers/connection-flood.ts';
import { makePdf } from '../helpers/fixtures.ts';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { startSftpApp, tempDir, type SftpApp, sftpWithPassword } from './sftp-harness.ts';

const LIMITS = { transferMaxUnauthenticatedPerAddress: 4, transferConnectionsPerMinutePerAddress: 30, transferHandshakeTimeoutMs: 3000 };
let app: SftpApp;
let account: FtpAccount;
let dir: string;
const floods: Flood[] = [];

beforeAll(async () => {
  app = await startSftpApp(LIMITS);
  account = await app.ftpAccount();
  dir = tempDir();
});
afterAll(async () => {
  for (const f of floods) f.end();
  await app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** OpenSSH sftp with the live key (sshpass) from 127.0.0.1 puts a PDF named after a new invoice; it must be attached. */
async function sftpUploadAttached(): Promise<void> {
  const invoice = await app.invoice(account.liveKey);
  const file = path.join(dir, `${invoice.invoiceNumber}.pdf`);
  fs.writeFileSync(file, await makePdf(invoice.invoiceNumber));
  const batch = path.join(dir, `${invoice.invoiceNumber}.batch`);
  fs.writeFileSync(batch, `put ${file}\n`);
  const res = await sftpWithPassword({ port: app.sftpPort, user: account.ftpUsername, password: account.liveKey, batch });
  expect(res.code, res.stderr).toBe(0);
  await expect
    .poll(async () => (await app.imports(account.liveKey)).find((r) => r.filename === `${invoice.invoiceNumber}.pdf`)?.status, { timeout: 30_000 })
    .toBe('attached');
}

describe('floods before login', () => {
  it('205 idle connections from 127.0.0.2: 4 get the identification line, the rest are told and closed; sftp on 127.0.0.1 uploads meanwhile', async () => {
    const before = await limitHits(app, 'sftp', 'per_address');
    const f = await flood(app.sftpPort, '127.0.0.2', 205);
    floods.push(f);
    await expect.poll(() => f.settled(), { timeout: 10_000 }).toBe(205);
    expect(f.greeted(/^SSH-2\.0-invoice-intake/)).toBe(4);
    expect(f.greeted(/^Too many connections from your address/)).toBe(201);
    await sftpUploadAttached();
    expect((await limitHits(app, 'sftp', 'per_address')) - before).toBeGreaterThanOrEqual(201);
    const line = app.logLines.map((l) => JSON.parse(l)).find((l) => l.prelogin === 'per_address' && l.address === '127.0.0.2' && l.protocol === 'sftp');
    expect(line).toMatchObject({ level: 40, limit: 4, msg: 'sftp connection refused: too many connections not logged in from this address' });
    // the 4 held ones never identified themselves: closed by the handshake timeout
    await expect.poll(() => f.closedCount(), { timeout: LIMITS.transferHandshakeTimeoutMs + 3000 }).toBe(205);
  });

  it('205 SSH identification lines from 127.0.0.3 that go no further: 4 held, then closed by the timeout; sftp on 127.0.0.1 uploads meanwhile', async () => {
    const f = await flood(app.sftpPort, '127.0.0.3', 205, { send: 'SSH-2.0-flood_1.0\r\n' });
    floods.push(f);
    await expect.poll(() => f.closedCount(), { timeout: 10_000 }).toBe(201);
    await sftpUploadAttached();
    await expect.poll(() => f.closedCount(), { timeout: LIMITS.transferHandshakeTimeoutMs + 3000 }).toBe(205);
  });

  it('a socket that never sends its identification line is closed within the handshake timeout, counted and logged', async () => {
    const before = await limitHits(app, 'sftp', 'handshake_timeout');
    const socket = await rawConnect(app.sftpPort, '127.0.0.4');
    const opened = Date.now();
    const closedAt = await openedWithin(socket, LIMITS.transferHandshakeTimeoutMs + 2000);
    expect(closedAt - opened).toBeGreaterThanOrEqual(LIMITS.transferHandshakeTimeoutMs - 200);
    await expect.poll(() => limitHits(app, 'sftp', 'handshake_timeout')).toBe(before + 1);
    expect(
      app.logLines.some((l) => l.includes('"prelogin":"handshake_timeout"') && l.includes('"address":"127.0.0.4"') && l.includes('"protocol":"sftp"')),
    ).toBe(true);
  });
});
