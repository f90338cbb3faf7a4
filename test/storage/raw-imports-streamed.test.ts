// POST /v2/imports with the file itself as the body streams into the document store (issue 46), as
// FTP does (streamed-uploads.test.ts): curl sends a 92 MB ZIP archive of real PDFs, each named by
// an invoice number, raw to the directory or S3 store; the service's memory grows by a small part
// of the archive, and every PDF in it is attached to its invoice. One over ZIP_MAX_TOTAL_BYTES is
// refused with 413 while it streams, and a client that goes away mid-body leaves no record; in
// neither case does an object or a temporary one stay behind.
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { until } from '../../testkit/wait.ts';
import { startFtpApp, type FtpApp } from '../ftp/ftp-harness.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { archiveImports } from '../helpers/zip-archives.ts';
import { growth, largeUploadStore, RSS_BOUND_BYTES, storedNames, storedZip } from './large-uploads.ts';

const MB = 1024 * 1024;
const LIMIT = 100 * MB;
const ENTRIES = 23;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-raw-zip-'));

/** `zip -0` of `count` real PDFs of about `entryBytes` each, named `<prefix><i>.pdf`, written to disk only. */
const pdfZip = (name: string, prefix: string, count: number, entryBytes: number) =>
  storedZip(scratch, name, async (dir) => {
    for (let i = 0; i < count; i++) fs.writeFileSync(path.join(dir, `${prefix}${i}.pdf`), await makePdf(`Invoice ${prefix}${i}`, entryBytes));
  });

/** curl POST /v2/imports raw as application/zip: `--data-binary @file` unless `body` gives other arguments (-T). */
function curlRaw(url: string, key: string, file: string, name: string, extra: string[] = [], body = ['--data-binary', `@${file}`]) {
  const args = ['-sS', '-w', '\n%{http_code}', ...body, '-H', 'Content-Type: application/zip', '-H', `X-Filename: ${name}`, ...extra];
  let child!: ChildProcess;
  const done = new Promise<{ code: number; out: string }>((resolve) => {
    child = execFile('curl', [...args, '-H', `Authorization: Bearer ${key}`, `${url}/v2/imports`], { timeout: 170_000 }, (err, stdout) =>
      resolve({ code: err ? 1 : 0, out: stdout }),
    );
  });
  return { child, done };
}
const answer = (out: string) => {
  const lines = out.split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) };
};

let zip92: string;
let zip120: string;
let s3: S3Server;
beforeAll(async () => {
  zip92 = await pdfZip('day.zip', 'RAW-', ENTRIES, 4 * MB);
  zip120 = await pdfZip('huge.zip', 'HUGE-', 30, 4 * MB);
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
}, 180_000);
afterAll(async () => {
  await s3?.destroy();
  fs.rmSync(scratch, { recursive: true, force: true });
});

for (const kind of ['directory', 's3'] as const) {
  describe(`POST /v2/imports raw on the ${kind} store`, () => {
    let t: FtpApp;
    let key: string;
    let url: string;
    beforeAll(async () => {
      const store = largeUploadStore(kind, scratch, s3, 'raw');
      t = await startFtpApp({ tls: false, config: { zipMaxTotalBytes: LIMIT, intakeBackoffMs: 1000, ...store } });
      key = (await t.ftpAccount()).liveKey;
      url = t.svc.apiUrl!;
    }, 120_000);
    afterAll(async () => t?.close());

    it('a 92 MB archive streams into the store: 202 once unpacked, every PDF attached, the memory grows far less', { timeout: 240_000 }, async () => {
      const invoices = [];
      for (let i = 0; i < ENTRIES; i++) invoices.push(await t.invoice(key, `RAW-${i}`));
      const before = await storedNames(t.svc.container.store);
      const { result: sent, rss, heap } = await growth(() => curlRaw(url, key, zip92, 'day.zip').done);
      console.log(`${kind}: 92 MB archive raw to POST /v2/imports, memory growth: RSS ${(rss / MB).toFixed(1)} MB, heap+external ${(heap / MB).toFixed(1)} MB`);
      expect(sent.code, sent.out).toBe(0);
      const { status, body: archive } = answer(sent.out);
      expect(status, sent.out).toBe(202);
      expect(archive).toMatchObject({ filename: 'day.zip', channel: 'http', status: 'unpacked', size: fs.statSync(zip92).size });
      // held whole (and joined once more), the archive alone would be 92 to 184 MB; streamed, what
      // grows is one entry (4 MB) at a time, a store part and the socket's buffers, as over FTP
      expect(heap).toBeLessThan(64 * MB);
      expect(rss).toBeLessThan(RSS_BOUND_BYTES);
      // the archive and each PDF are objects of their own
      expect((await storedNames(t.svc.container.store)).length).toBe(before.length + 1 + ENTRIES);
      const files = await archiveImports(t.request, key, archive.id, ENTRIES, (r) => r.status === 'attached' || r.status === 'failed', 180_000);
      const byNumber = new Map(invoices.map((inv) => [`${inv.invoiceNumber}.pdf`, inv.id]));
      for (const f of files) expect(f, f.filename).toMatchObject({ status: 'attached', invoice: byNumber.get(f.filename), matchedBy: 'invoice_number' });
    });

    it('a 120 MB archive over ZIP_MAX_TOTAL_BYTES (100 MB), sent chunked: 413 while it streams, no object, no record', { timeout: 180_000 }, async () => {
      const before = await storedNames(t.svc.container.store);
      const records = (await t.imports(key)).length;
      const { result: sent, rss } = await growth(() => curlRaw(url, key, zip120, 'huge.zip', ['-H', 'Transfer-Encoding: chunked']).done);
      const { status, body } = answer(sent.out);
      expect(status, sent.out).toBe(413);
      expect(body).toMatchObject({ status: 413, detail: expect.stringMatching(/^huge\.zip is larger than 104857600 bytes/) });
      expect(rss).toBeLessThan(RSS_BOUND_BYTES);
      expect((await t.imports(key)).length).toBe(records);
      expect(await storedNames(t.svc.container.store)).toEqual(before);
      expect(await t.svc.container.store.removeLeftovers!(new Date(Date.now() + 3600_000))).toBe(0);
    });

    it('a client that goes away mid-body: no record, and nothing stays in the store once the sweep has run', { timeout: 180_000 }, async () => {
      const before = await storedNames(t.svc.container.store);
      const records = (await t.imports(key)).length;
      const lines = t.logLines.length;
      // curl reads the body from its stdin (-T -, chunked): after 10 MB of the 92 MB archive it is mid-body for certain
      const { child, done } = curlRaw(url, key, '-', 'gone.zip', [], ['-X', 'POST', '-T', '-']);
      const pipe = child.stdin!.on('error', () => {}); // EPIPE once curl is killed
      for await (const chunk of fs.createReadStream(zip92, { end: 10 * MB - 1 })) if (!pipe.write(chunk)) await once(pipe, 'drain');
      child.kill('SIGKILL');
      await done;
      await until(() => t.logLines.slice(lines).some((l) => l.includes('raw import cut short by its client')), 30_000, 'the service to see the client gone');
      expect((await t.imports(key)).length).toBe(records);
      // what the store kept of it (a temporary object at most) is gone after the sweep's leftovers pass
      await t.svc.container.store.removeLeftovers!(new Date(Date.now() + 3600_000));
      expect(await storedNames(t.svc.container.store)).toEqual(before);
    });
  });
}
