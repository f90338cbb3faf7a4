// A slow store (issue 46): s3rver stopped with SIGSTOP still accepts connections (the kernel's
// backlog) but answers nothing, as an overloaded object store does. Within DOCUMENT_STORE_TIMEOUT_MS
// curl's FTP upload gets 451 and POST /v2/imports 503 with Retry-After, nothing acknowledged and
// nothing recorded; once it answers again (SIGCONT) the same uploads are received and attached once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { curlUpload, intakeIdOf } from '../ftp/ftp-clients.ts';
import { startFtpApp, type FtpApp } from '../ftp/ftp-harness.ts';

const TIMEOUT_MS = 2000;
let s3: S3Server;
let t: FtpApp;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-slow-store-'));

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
  t = await startFtpApp({
    tls: false,
    config: {
      ftpAllowPlain: true,
      documentStoreTimeoutMs: TIMEOUT_MS,
      documentStore: 's3',
      s3Endpoint: s3.endpoint,
      s3Bucket: s3.bucket,
      s3Prefix: `slow-${Date.now()}/`,
      s3Region: 'us-east-1',
      s3ForcePathStyle: true,
    },
  });
}, 120_000);
afterAll(async () => {
  const pid = s3?.pid();
  if (pid) process.kill(pid, 'SIGCONT');
  await t?.close();
  await s3?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const paused = async <T>(work: () => Promise<T>): Promise<T> => {
  const pid = s3.pid()!;
  process.kill(pid, 'SIGSTOP');
  try {
    return await work();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
};

describe('a store that accepts but does not answer', () => {
  it('FTP 451 and HTTP 503 + Retry-After within the time-out, nothing recorded; answering again, each file attached once', async () => {
    const account = await t.ftpAccount();
    const { key } = await t.uploadKey(account.liveKey, ['127.0.0.0/8']);
    const [byFtp, byHttp] = [await t.invoice(account.liveKey), await t.invoice(account.liveKey)];
    const file = path.join(dir, `${byFtp.invoiceNumber}.pdf`);
    fs.writeFileSync(file, await makePdf('slow-store ftp'));
    const body = { filename: `${byHttp.invoiceNumber}.pdf`, content: (await makePdf('slow-store http')).toString('base64') };
    const post = () => t.request('POST', '/v2/imports', { key: account.liveKey, body });

    const [ftp, http] = await paused(async () => {
      const started = Date.now();
      const answers = await Promise.all([curlUpload(t.port, account.ftpUsername, key, file, `${byFtp.invoiceNumber}.pdf`, { tls: false }), post()]);
      // the store's time-out, not a client's nor the test's, ended both; once each: the second
      // upload's put does not wait for the first one's group (it did: 4.1 s, twice the time-out)
      console.log(`store paused: FTP and HTTP answered after ${Date.now() - started} ms (time-out ${TIMEOUT_MS} ms)`);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 1.75);
      return answers;
    });
    expect(ftp.code).not.toBe(0);
    expect(ftp.stderr).toMatch(/< 451 /);
    expect(ftp.stderr).not.toMatch(/< 226 /);
    expect(http.status).toBe(503);
    expect(Number(http.headers['retry-after'])).toBeGreaterThan(0);
    expect(http.body).toMatchObject({ status: 503, title: expect.any(String), detail: expect.stringMatching(/document store/) });
    expect(await t.imports(account.liveKey)).toEqual([]);

    const again = await curlUpload(t.port, account.ftpUsername, key, file, `${byFtp.invoiceNumber}.pdf`, { tls: false });
    expect(again.code, again.stderr).toBe(0);
    const retried = await post();
    expect(retried.status).toBe(202);
    expect(await t.waitFor(account.liveKey, intakeIdOf(/< 226 (.*)/.exec(again.stderr)![1]))).toMatchObject({ status: 'attached', invoice: byFtp.id });
    expect(await t.waitFor(account.liveKey, retried.body.id)).toMatchObject({ status: 'attached', invoice: byHttp.id });
    for (const inv of [byFtp, byHttp]) expect((await t.documentsOf(inv.id)).filter((d) => !d.deleted_at)).toHaveLength(1);
    expect(await t.imports(account.liveKey)).toHaveLength(2);
  });
});
