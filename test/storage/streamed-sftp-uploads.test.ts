// Large uploads over SFTP stream into the document store (issue 46): a 92 MB ZIP archive of PDFs
// sent with OpenSSH's sftp goes into the directory or S3 store as its writes arrive and is unpacked
// from there, so the service's memory grows by a small part of the archive, never by the archive;
// one over ZIP_MAX_TOTAL_BYTES is refused while it streams, nothing kept. A temporary upload
// (`day.zip.filepart`, renamed in a later session, as rclone does) waits as a stored object, not
// in memory, and is received once, at the rename; a temporary PDF is read back at its rename, and
// one over 5 MB renamed to a .pdf name is refused as too large. And back-pressure: with s3rver
// stopped mid-upload, the writes' replies wait, so the client sends nothing more until it answers.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { bigPdf, connectSftp, open, startSftpApp, sftpWithPassword, write, type SftpApp } from '../sftp/sftp-harness.ts';
import { until } from '../../testkit/wait.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { growth, largeUploadStore, RSS_BOUND_BYTES, storedNames, storedZip } from './large-uploads.ts';

const MB = 1024 * 1024;
const LIMIT = 100 * MB;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-big-sftp-'));

/** `zip -0` of `entries` PDFs of about `entryBytes` each (random filler: each one distinct), named n.pdf, on disk only. */
const pdfZip = (name: string, entries: number, entryBytes: number) =>
  storedZip(scratch, name, async (dir) => {
    for (let i = 0; i < entries; i++) fs.writeFileSync(path.join(dir, `${i}.pdf`), await bigPdf(entryBytes, `Invoice ${i}`));
  });

const sha256Of = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let zip92: string;
/** another 92 MB archive, for the temporary upload: its object is not in the store before */
let week92: string;
let zip120: string;
let s3: S3Server;
beforeAll(async () => {
  zip92 = await pdfZip('day.zip', 23, 4 * MB - 64 * 1024);
  week92 = await pdfZip('week.zip', 23, 4 * MB - 64 * 1024);
  zip120 = await pdfZip('huge.zip', 30, 4 * MB);
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
}, 180_000);
afterAll(async () => {
  await s3?.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
});

for (const kind of ['directory', 's3'] as const) {
  describe(`SFTP on the ${kind} store`, () => {
    let t: SftpApp;
    let account: FtpAccount;
    beforeAll(async () => {
      const store = largeUploadStore(kind, scratch, s3, 'sftp');
      t = await startSftpApp({ zipMaxTotalBytes: LIMIT, ...store });
      account = await t.ftpAccount();
    }, 120_000);
    afterAll(async () => t?.close());

    /** OpenSSH's sftp running these batch lines with the live key as password. */
    const sftp = (lines: string[]) => {
      const batch = path.join(scratch, `batch-${Math.random().toString(36).slice(2)}`);
      fs.writeFileSync(batch, `${lines.join('\n')}\n`);
      return sftpWithPassword({ port: t.sftpPort, user: account.ftpUsername, password: account.liveKey, batch, timeoutMs: 170_000 });
    };
    const archiveAndFiles = async (name: string) => {
      const all = await t.imports(account.liveKey);
      const archive = all.find((r: any) => r.filename === name);
      return { archive, files: archive ? all.filter((r: any) => r.archive === archive.id) : [] };
    };

    it('a 92 MB archive of PDFs streams into the store: every file in it received, the memory grows by far less than 92 MB', { timeout: 240_000 }, async () => {
      expect(await t.svc.container.store.has(sha256Of(zip92))).toBe(false);
      const { result: sent, rss, heap } = await growth(() => sftp([`put ${zip92} day.zip`]));
      console.log(`${kind}: 92 MB archive over SFTP (OpenSSH), memory growth: RSS ${(rss / MB).toFixed(1)} MB, heap+external ${(heap / MB).toFixed(1)} MB`);
      expect(sent.code, sent.stderr).toBe(0);
      const { archive, files } = await archiveAndFiles('day.zip');
      expect(archive).toMatchObject({ status: 'unpacked', size: fs.statSync(zip92).size });
      expect(files.map((f: any) => f.filename).sort()).toEqual(Array.from({ length: 23 }, (_, i) => `${i}.pdf`).sort());
      expect(files.filter((f: any) => f.status === 'failed')).toEqual([]);
      // the archive itself is an object in the store, streamed there
      expect(await t.svc.container.store.has(sha256Of(zip92))).toBe(true);
      // held whole (the old upload buffer, then its joined copy) it would be 92 to 184 MB
      expect(heap).toBeLessThan(64 * MB);
      expect(rss).toBeLessThan(RSS_BOUND_BYTES);
    });

    it('a 120 MB archive over ZIP_MAX_TOTAL_BYTES (100 MB): refused while it streams, no object, no record', { timeout: 240_000 }, async () => {
      const before = await storedNames(t.svc.container.store);
      const records = (await t.imports(account.liveKey)).length;
      const { result: sent, rss } = await growth(() => sftp([`put ${zip120} huge.zip`]));
      expect(sent.code).not.toBe(0);
      expect(sent.stderr).toMatch(/huge\.zip is larger than 104857600 bytes \(100 MB\): refused, nothing was received/);
      expect(rss).toBeLessThan(RSS_BOUND_BYTES);
      expect((await t.imports(account.liveKey)).length).toBe(records);
      expect(await storedNames(t.svc.container.store)).toEqual(before);
      expect(await t.svc.container.store.removeLeftovers!(new Date(Date.now() + 3600_000))).toBe(0);
    });

    it('week.zip.filepart, renamed in a later session: waits as a stored object (not in memory), received once at the rename', {
      timeout: 240_000,
    }, async () => {
      const records = (await t.imports(account.liveKey)).length;
      expect(await t.svc.container.store.has(sha256Of(week92))).toBe(false);
      const { result: put, rss, heap } = await growth(() => sftp([`put ${week92} week.zip.filepart`, 'ls -l']));
      console.log(`${kind}: 92 MB temporary upload over SFTP, memory growth: RSS ${(rss / MB).toFixed(1)} MB, heap+external ${(heap / MB).toFixed(1)} MB`);
      expect(put.code, put.stderr).toBe(0);
      // listed as uploading with its size; in the store, not yet received
      expect(put.stdout).toMatch(new RegExp(`${fs.statSync(week92).size}\\s.*week\\.zip\\.filepart`));
      expect(heap).toBeLessThan(64 * MB);
      expect(rss).toBeLessThan(RSS_BOUND_BYTES);
      expect(await t.svc.container.store.has(sha256Of(week92))).toBe(true);
      expect((await t.imports(account.liveKey)).length).toBe(records);

      const renamed = await growth(() => sftp(['rename week.zip.filepart week.zip']));
      expect(renamed.result.code, renamed.result.stderr).toBe(0);
      // no bytes read back: the archive is unpacked where it lies
      expect(renamed.heap).toBeLessThan(64 * MB);
      const { archive, files } = await archiveAndFiles('week.zip');
      expect(archive).toMatchObject({ status: 'unpacked', size: fs.statSync(week92).size });
      expect(files).toHaveLength(23);
      expect((await t.imports(account.liveKey)).filter((r: any) => r.filename === 'week.zip')).toHaveLength(1);
      // renamed once, it is gone: a second rename finds nothing
      const again = await sftp(['rename week.zip.filepart week2.zip']);
      expect(again.code).not.toBe(0);
    });

    it('a client that leaves before its close: the put is cut off, no object, no record', { timeout: 120_000 }, async () => {
      const before = await storedNames(t.svc.container.store);
      const records = (await t.imports(account.liveKey)).length;
      const { client, sftp: s } = await connectSftp(t.sftpPort, { username: account.ftpUsername, password: account.liveKey });
      const handle = await open(s, 'left.zip', 'w');
      const chunk = fs.readFileSync(zip92).subarray(0, 12 * MB);
      // past one S3 part: a multipart upload is under way when the client goes
      for (let at = 0; at < chunk.length; at += MB) await write(s, handle, chunk.subarray(at, at + MB), at);
      client.end();
      await until(async () => (await t.gauge('transfers', 'sftp')) === 0, 20_000, 'the upload dropped');
      expect((await t.imports(account.liveKey)).length).toBe(records);
      await until(async () => (await storedNames(t.svc.container.store)).join() === before.join(), 20_000, 'no object left');
      expect(await t.svc.container.store.removeLeftovers!(new Date(Date.now() + 3600_000))).toBe(0);
    });

    it('a temporary PDF is read back at its rename; one over 5 MB renamed to a .pdf name is refused as too large and stays held', {
      timeout: 120_000,
    }, async () => {
      const pdf = path.join(scratch, `note-${kind}.pdf`);
      fs.writeFileSync(pdf, await makePdf(`note-${kind}`));
      const six = path.join(scratch, `six-${kind}.bin`);
      fs.writeFileSync(six, await bigPdf(6 * MB));
      const ok = await sftp([`put ${pdf} .in.note.pdf`, 'rename .in.note.pdf note.pdf']);
      expect(ok.code, ok.stderr).toBe(0);
      const note = (await t.imports(account.liveKey)).find((r: any) => r.filename === 'note.pdf');
      expect(note).toMatchObject({ size: fs.statSync(pdf).size });
      expect(note.status).not.toBe('failed');

      const big = await sftp([`put ${six} six.zip.part`, 'rename six.zip.part six.pdf']);
      expect(big.code).not.toBe(0);
      expect(big.stderr).toMatch(/six\.pdf is larger than 5242880 bytes \(5 MB\): refused, nothing was received/);
      expect((await t.imports(account.liveKey)).some((r: any) => r.filename === 'six.pdf')).toBe(false);
      const listing = await sftp(['ls -l']);
      expect(listing.stdout).toContain('six.zip.part');
    });
  });
}

describe('SFTP back-pressure: a store that stops answering stops the client', () => {
  let t: SftpApp;
  let account: FtpAccount;
  beforeAll(async () => {
    t = await startSftpApp({
      zipMaxTotalBytes: LIMIT,
      // longer than the pause: the store is slow, not down
      documentStoreTimeoutMs: 60_000,
      documentStore: 's3',
      s3Endpoint: s3.endpoint,
      s3Bucket: s3.bucket,
      s3Prefix: `sftp-slow-${Date.now()}/`,
      s3Region: 'us-east-1',
      s3ForcePathStyle: true,
    });
    account = await t.ftpAccount();
  }, 120_000);
  afterAll(async () => {
    const pid = s3?.pid();
    if (pid) process.kill(pid, 'SIGCONT');
    await t?.close();
  });

  it('s3rver stopped (SIGSTOP) mid-upload: the writes are answered no more, so no bytes arrive; resumed, the archive is received whole', {
    timeout: 240_000,
  }, async () => {
    const received = async () => (await t.counters('sftp')).bytesReceived;
    const batch = path.join(scratch, 'batch-slow');
    fs.writeFileSync(batch, `put ${zip92} slow.zip\n`);
    const sent = sftpWithPassword({ port: t.sftpPort, user: account.ftpUsername, password: account.liveKey, batch, timeoutMs: 200_000 });
    await until(async () => (await received()) > 20 * MB, 60_000, '20 MB to arrive');
    process.kill(s3.pid()!, 'SIGSTOP');
    // what was on its way lands (the part being filled, the client's pipeline of 64 writes), then nothing
    let last = -1;
    await until(async () => last === (last = await received()), 20_000, 'the upload to stall', 500);
    const stalledAt = last;
    // an absence is measured over a window: 3 s in which, without back-pressure, some 30-60 MB would arrive
    await new Promise((r) => setTimeout(r, 3000));
    const during = (await received()) - stalledAt;
    process.kill(s3.pid()!, 'SIGCONT');
    console.log(`while s3rver was stopped for 3 s: ${during} bytes arrived over SFTP (stalled after ${(stalledAt / MB).toFixed(1)} MB)`);
    expect(during).toBeLessThan(MB);
    expect(stalledAt).toBeLessThan(fs.statSync(zip92).size - 16 * MB);
    const done = await sent;
    expect(done.code, done.stderr).toBe(0);
    const all = await t.imports(account.liveKey);
    const archive = all.find((r: any) => r.filename === 'slow.zip');
    expect(archive).toMatchObject({ status: 'unpacked', size: fs.statSync(zip92).size });
    expect(all.filter((r: any) => r.archive === archive.id)).toHaveLength(23);
  });
});
