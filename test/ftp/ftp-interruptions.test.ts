// Uploads that do not end well: the client disconnects or is killed mid-upload, stalls, aborts,
// or intake cannot take the file. None of them may leave a staged file or get a 226. A session
// that ends between a temporary upload and its rename: the next session may rename it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startFtpRole } from '../../src/app/ftp-role.ts';
import { ftpMetrics } from '../../src/channels/transfer/transfer-metrics.ts';
import { failingIntake } from './failing-intake.ts';
import { bigPdf, connectFtp, counters, ftpCode, intakeIdOf, RawFtp, spawnCurl, startFtpApp, until, upload, type FtpAccount, type FtpApp } from './ftp-harness.ts';

let t: FtpApp;
let tmp: string;

beforeAll(async () => {
  t = await startFtpApp({ config: { ftpTransferTimeoutMs: 1500, ftpIdleTimeoutMs: 2000 } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-int-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const noTransfers = () => until(async () => (await ftpMetrics.gauge('transfers')) === 0, 10_000, 'the transfer to end');

/** A source that sends `first` and then nothing more until destroyed. */
function stallingSource(first: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(first);
      }
    },
  });
}

/** Logged in over FTPS with a TLS data connection open (EPSV): what the raw tests build on. */
async function rawSession(a: FtpAccount): Promise<{ ftp: RawFtp; data: tls.TLSSocket }> {
  const { ftp } = await RawFtp.connect(t.port);
  await ftp.startTls();
  expect(await ftp.login(a.ftpUsername, a.liveKey)).toMatch(/^230/);
  await ftp.send('PBSZ 0');
  await ftp.send('PROT P');
  await ftp.send('TYPE I');
  const epsv = await ftp.send('EPSV');
  const port = Number(/\|\|\|(\d+)\|/.exec(epsv)![1]);
  const data = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => {
    data.once('secureConnect', resolve);
    data.once('error', reject);
  });
  data.on('error', () => {});
  return { ftp, data };
}

describe('interrupted uploads', () => {
  it('basic-ftp closing the client mid-upload leaves nothing', async () => {
    const a = await t.ftpAccount();
    const pdf = await bigPdf(2_000_000, 'half');
    const before = (await counters());
    const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    const pending = client.uploadFrom(stallingSource(pdf.subarray(0, 1_000_000)), 'half.pdf').catch((e) => e);
    await until(async () => (await counters()).bytesReceived - before.bytesReceived >= 1_000_000, 10_000, 'the first half to arrive');
    client.close();
    expect(await pending).toBeInstanceOf(Error);
    await noTransfers();
    expect((await counters()).uploadsAborted - before.uploadsAborted).toBe(1);
    expect((await counters()).uploadsReceived - before.uploadsReceived).toBe(0);
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('curl killed (SIGKILL) mid-upload leaves nothing', async () => {
    const a = await t.ftpAccount();
    const file = path.join(tmp, 'killed.pdf');
    fs.writeFileSync(file, await bigPdf(3_000_000, 'killed'));
    const before = (await counters());
    const curl = spawnCurl(t.port, a.ftpUsername, a.liveKey, file, 'killed.pdf', ['--limit-rate', '300k']);
    const exited = new Promise((r) => curl.once('exit', r));
    await until(async () => (await counters()).bytesReceived - before.bytesReceived >= 200_000, 20_000, 'some bytes to arrive');
    curl.kill('SIGKILL');
    await exited;
    await noTransfers();
    expect((await counters()).uploadsAborted - before.uploadsAborted).toBe(1);
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('a data connection that ends cleanly half way, with the client gone right after, stages nothing', async () => {
    const a = await t.ftpAccount();
    const pdf = await bigPdf(400_000, 'truncated');
    const before = (await counters());
    const { ftp, data } = await rawSession(a);
    expect(await ftp.send('STOR truncated.pdf')).toMatch(/^150/);
    data.end(pdf.subarray(0, 200_000)); // close_notify and FIN: a "clean" end
    await new Promise((r) => data.once('close', r));
    ftp.close();
    await noTransfers();
    expect((await counters()).uploadsAborted - before.uploadsAborted).toBe(1);
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('the same half file from a client that stays is handed on: the disconnect made the difference', async () => {
    const a = await t.ftpAccount();
    const pdf = await bigPdf(400_000, 'truncated');
    const { ftp, data } = await rawSession(a);
    try {
      expect(await ftp.send('STOR stays.pdf')).toMatch(/^150/);
      data.end(pdf.subarray(0, 200_000));
      const reply = await ftp.reply();
      expect(reply).toMatch(/^226 stays\.pdf received as imp_/);
      const id = /(imp_\w+)/.exec(reply)![1];
      const rec = (await t.imports(a.liveKey)).find((r: any) => r.id === id);
      expect(rec).toMatchObject({ filename: 'stays.pdf', size: 200_000 });
    } finally {
      ftp.close();
    }
  });

  it('a stalled upload is aborted with 426 after the transfer timeout; nothing staged', async () => {
    const a = await t.ftpAccount();
    const before = (await counters());
    const client = await connectFtp(t.port, a.ftpUsername, a.liveKey, true, 30_000);
    try {
      const pdf = await bigPdf(100_000, 'stalled');
      expect(await ftpCode(client.uploadFrom(stallingSource(pdf.subarray(0, 50_000)), 'stalled.pdf'))).toBe(426);
    } finally {
      client.close();
    }
    expect((await counters()).uploadsAborted - before.uploadsAborted).toBe(1);
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('ABOR during an upload: 426 for the transfer, 226 for ABOR, nothing staged', async () => {
    const a = await t.ftpAccount();
    const pdf = await bigPdf(300_000, 'aborted');
    const { ftp, data } = await rawSession(a);
    try {
      expect(await ftp.send('STOR aborted.pdf')).toMatch(/^150/);
      data.write(pdf.subarray(0, 100_000));
      const before = (await counters());
      await until(async () => (await counters()).bytesReceived > before.bytesReceived || (await ftpMetrics.gauge('transfers')) === 1, 5000, 'bytes to arrive');
      expect(await ftp.send('ABOR')).toMatch(/^426 /);
      expect(await ftp.reply()).toMatch(/^226 ABOR/);
      // the session goes on
      expect(await ftp.send('NOOP')).toMatch(/^200/);
    } finally {
      ftp.close();
    }
    expect(await t.imports(a.liveKey)).toEqual([]);
  });

  it('closes a session that stays idle with 421', async () => {
    const a = await t.ftpAccount();
    const { ftp } = await RawFtp.connect(t.port);
    try {
      await ftp.startTls();
      expect(await ftp.login(a.ftpUsername, a.liveKey)).toMatch(/^230/);
      expect(await ftp.reply()).toMatch(/^421 Idle timeout/);
      await until(async () => ftp.closed, 5000, 'the connection to close');
    } finally {
      ftp.close();
    }
  });
});

describe('a session that ends before its rename', () => {
  it('a temporary upload waits for its rename in a later session (rclone: one session per command), in its own account and mode only', async () => {
    const [a, other] = [await t.ftpAccount(), await t.ftpAccount()];
    const invoice = await t.invoice(a.liveKey);
    const [temp, final] = [`${invoice.invoiceNumber}.pdf.part`, `${invoice.invoiceNumber}.pdf`];
    const first = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    expect((await upload(first, temp, await makePdf('renamed later'))).message).toMatch(/held/);
    first.close();
    // neither the test mode of the account nor another account sees it or can rename it
    for (const [user, key] of [[a.ftpUsername, a.testKey], [other.ftpUsername, other.liveKey]]) {
      const stranger = await connectFtp(t.port, user, key);
      expect((await stranger.list()).map((f) => f.name)).not.toContain(temp);
      expect(await ftpCode(stranger.rename(temp, final).finally(() => stranger.close()))).toBe(550);
    }
    expect(await t.imports(a.liveKey)).toEqual([]);
    const again = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    try {
      expect((await again.list()).find((f) => f.name === temp)?.user).toBe('uploading');
      const renamed = await again.rename(temp, final);
      expect(await t.waitFor(a.liveKey, intakeIdOf(renamed.message))).toMatchObject({ status: 'attached', invoice: invoice.id });
    } finally {
      again.close();
    }
  });
});

describe('intake unavailable', () => {
  it('answers 451, not 226, when the file cannot be staged and queued (the client may send it again), and 451 when the directory cannot be read', async () => {
    let recentFails = false;
    const failing = failingIntake(t.svc.container.intake, () => recentFails);
    const channel = await startFtpRole(t.svc.container, failing);
    expect(channel).toBeDefined();
    const before = (await counters());
    try {
      const a = await t.ftpAccount();
      const client = await connectFtp(channel!.port, a.ftpUsername, a.liveKey);
      try {
        expect(await ftpCode(upload(client, 'unstaged.pdf', await makePdf('unstaged')))).toBe(451);
        await upload(client, 'later.pdf.filepart', await makePdf('later'));
        expect(await ftpCode(client.rename('later.pdf.filepart', 'later.pdf'))).toBe(451);
        // still held: the rename can be tried again
        expect((await client.list()).map((f) => f.name)).toContain('later.pdf.filepart');
        // a directory that cannot be read is a transient 451, without the database's error text
        recentFails = true;
        const err = await client.list().catch((e) => e);
        expect(err.code).toBe(451);
        expect(err.message).not.toMatch(/ECONNREFUSED|5432/);
      } finally {
        client.close();
      }
      expect((await counters()).uploadsStagingFailed - before.uploadsStagingFailed).toBe(2);
      expect(await t.imports(a.liveKey)).toEqual([]);
    } finally {
      await channel!.stop();
    }
  });
});
