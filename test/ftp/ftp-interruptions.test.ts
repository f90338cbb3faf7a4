// Uploads that do not end well: the client disconnects or is killed mid-upload, stalls, aborts,
// or intake cannot take the file. None of them may leave a staged file or get a 226. A session
// that ends between a temporary upload and its rename: the next session may rename it.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startFtpRole } from '../../src/app/ftp-role.ts';
import { TransferMetrics, transferReadings, type TransferCounter } from '../../src/channels/transfer/transfer-metrics.ts';
import { failingIntake } from './failing-intake.ts';
import { connectFtp, ftpCode, intakeIdOf, spawnCurl, upload } from './ftp-clients.ts';
import { bigPdf, ftpTestFile, until, type FtpAccount } from './ftp-harness.ts';
import { RawFtp } from './raw-ftp.ts';
import { ROOT } from '../../testkit/paths.ts';

const t = ftpTestFile({ config: { ftpTransferTimeoutMs: 1500, ftpIdleTimeoutMs: 2000 } });

const noTransfers = () => until(async () => (await t.gauge('transfers')) === 0, 10_000, 'the transfer to end');

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

/** Logged in over FTPS, a TLS data connection open (EPSV) and STOR `name` under way (150); a PDF of about `size` bytes to send. */
async function rawStor(a: FtpAccount, name: string, size: number): Promise<{ ftp: RawFtp; data: tls.TLSSocket; pdf: Buffer }> {
  const pdf = await bigPdf(size, name);
  const ftp = await RawFtp.loggedIn(t.port, a.ftpUsername, a.liveKey);
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
  expect(await ftp.send(`STOR ${name}`)).toMatch(/^150/);
  return { ftp, data, pdf };
}

/** rawStor for a fresh account; its control connection is closed after `use`. */
async function withRawStor(name: string, size: number, use: (upload: Awaited<ReturnType<typeof rawStor>>, a: FtpAccount) => Promise<void>): Promise<void> {
  const a = await t.ftpAccount();
  const upload = await rawStor(a, name, size);
  try {
    await use(upload, a);
  } finally {
    upload.ftp.close();
  }
}

/** `interrupt` uploads for a fresh account and breaks the upload off: one upload counted aborted, none received, nothing staged. */
async function expectAborted(interrupt: (a: FtpAccount, before: Record<TransferCounter, number>) => Promise<void>) {
  const a = await t.ftpAccount();
  const before = await t.counters();
  await interrupt(a, before);
  await noTransfers();
  const after = await t.counters();
  expect(after.uploadsAborted - before.uploadsAborted).toBe(1);
  expect(after.uploadsReceived - before.uploadsReceived).toBe(0);
  expect(await t.imports(a.liveKey)).toEqual([]);
}

const bytesArrived = (before: Record<TransferCounter, number>, bytes: number, ms: number, what: string) =>
  until(async () => (await t.counters()).bytesReceived - before.bytesReceived >= bytes, ms, what);

describe('interrupted uploads', () => {
  it('basic-ftp closing the client mid-upload leaves nothing', () =>
    expectAborted(async (a, before) => {
      const pdf = await bigPdf(2_000_000, 'half');
      const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
      const pending = client.uploadFrom(stallingSource(pdf.subarray(0, 1_000_000)), 'half.pdf').catch((e) => e);
      await bytesArrived(before, 1_000_000, 10_000, 'the first half to arrive');
      client.close();
      expect(await pending).toBeInstanceOf(Error);
    }));

  it('curl killed (SIGKILL) mid-upload leaves nothing', () =>
    expectAborted(async (a, before) => {
      const file = path.join(t.dir, 'killed.pdf');
      fs.writeFileSync(file, await bigPdf(3_000_000, 'killed'));
      const curl = spawnCurl(t.port, a.ftpUsername, a.liveKey, file, 'killed.pdf', ['--limit-rate', '300k']);
      const exited = new Promise((r) => curl.once('exit', r));
      await bytesArrived(before, 200_000, 20_000, 'some bytes to arrive');
      curl.kill('SIGKILL');
      await exited;
    }));

  it('a data connection that ends cleanly half way, with the client gone right after, stages nothing', () =>
    expectAborted(async (a) => {
      const { ftp, data, pdf } = await rawStor(a, 'truncated.pdf', 400_000);
      data.end(pdf.subarray(0, 200_000)); // close_notify and FIN: a "clean" end
      await new Promise((r) => data.once('close', r));
      ftp.close();
    }));

  // an XML e-invoice is trusted at once only when it ends with its root's end tag
  // (upload-completeness.ts); cut after an inner end tag it still waits for the client to leave
  it('a real XML e-invoice cut after an inner end tag, the client gone right after, stages nothing', () =>
    expectAborted(async (a) => {
      const xml = fs.readFileSync(path.resolve(ROOT, '../shared/corpora/einvoice-xml/01.01a-INVOICE_ubl.xml'));
      const { ftp, data } = await rawStor(a, 'cut.xml', 1000);
      const innerEnd = xml.indexOf('>', xml.lastIndexOf('</', xml.lastIndexOf('</') - 1)) + 1;
      data.end(xml.subarray(0, innerEnd));
      await new Promise((r) => data.once('close', r));
      ftp.close();
    }));

  it('the same half file from a client that stays is handed on: the disconnect made the difference', () =>
    withRawStor('stays.pdf', 400_000, async ({ ftp, data, pdf }, a) => {
      data.end(pdf.subarray(0, 200_000));
      const reply = await ftp.reply();
      expect(reply).toMatch(/^226 stays\.pdf received as imp_/);
      const id = /(imp_\w+)/.exec(reply)![1];
      const rec = (await t.imports(a.liveKey)).find((r: any) => r.id === id);
      expect(rec).toMatchObject({ filename: 'stays.pdf', size: 200_000 });
    }));

  it('a stalled upload is aborted with 426 after the transfer timeout; nothing staged', () =>
    expectAborted(async (a) => {
      const client = await connectFtp(t.port, a.ftpUsername, a.liveKey, true, 30_000);
      try {
        const pdf = await bigPdf(100_000, 'stalled');
        expect(await ftpCode(client.uploadFrom(stallingSource(pdf.subarray(0, 50_000)), 'stalled.pdf'))).toBe(426);
      } finally {
        client.close();
      }
    }));

  it('ABOR during an upload: 426 for the transfer, 226 for ABOR, nothing staged', () =>
    withRawStor('aborted.pdf', 300_000, async ({ ftp, data, pdf }, a) => {
      data.write(pdf.subarray(0, 100_000));
      const before = await t.counters();
      await until(async () => (await t.counters()).bytesReceived > before.bytesReceived || (await t.gauge('transfers')) === 1, 5000, 'bytes to arrive');
      expect(await ftp.send('ABOR')).toMatch(/^426 /);
      expect(await ftp.reply()).toMatch(/^226 ABOR/);
      // the session goes on
      expect(await ftp.send('NOOP')).toMatch(/^200/);
      expect(await t.imports(a.liveKey)).toEqual([]);
    }));

  it('closes a session that stays idle with 421', async () => {
    const a = await t.ftpAccount();
    const ftp = await RawFtp.loggedIn(t.port, a.ftpUsername, a.liveKey);
    try {
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
    for (const [user, key] of [
      [a.ftpUsername, a.testKey],
      [other.ftpUsername, other.liveKey],
    ]) {
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
    const metrics = new TransferMetrics('ftp');
    const channel = await startFtpRole(t.svc.container, failing, { metrics });
    expect(channel).toBeDefined();
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
      expect(await transferReadings(metrics.registry).value('uploadsStagingFailed')).toBe(2);
      expect(await t.imports(a.liveKey)).toEqual([]);
    } finally {
      await channel!.stop();
    }
  });
});
