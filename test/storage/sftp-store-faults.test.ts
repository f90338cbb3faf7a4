// SFTP on an S3 store that goes down (issue 46): s3rver killed, OpenSSH's `sftp -b` gets a failure
// status for its put (the batch fails) and nothing is recorded; once the store is back the same
// put is received and attached once, and every object the sweep would keep is one a row points at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import type { FtpAccount } from '../ftp/ftp-harness.ts';
import { admin, bigPdf, run, SSH_OPTS, sshKeygen, startSftpApp, tempDir, type SftpApp } from '../sftp/sftp-harness.ts';

let s3: S3Server;
let app: SftpApp;
let account: FtpAccount;
const dir = tempDir('ii-sftp-store-');

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, S3RVER_CREDENTIALS);
  app = await startSftpApp({
    documentStoreTimeoutMs: 2000,
    documentStore: 's3',
    s3Endpoint: s3.endpoint,
    s3Bucket: s3.bucket,
    s3Prefix: `sftp-${Date.now()}/`,
    s3Region: 'us-east-1',
    s3ForcePathStyle: true,
  });
  account = await app.ftpAccount();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await s3?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SFTP on a store that is down', () => {
  it('sftp -b put: a failure status and nothing recorded; the store back, the same put attached once', async () => {
    const key = await sshKeygen(dir);
    expect((await admin(app, 'POST', `/admin/accounts/${account.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
    const invoice = await app.invoice(account.liveKey);
    const file = path.join(dir, `${invoice.invoiceNumber}.pdf`);
    fs.writeFileSync(file, await bigPdf(20_000, invoice.invoiceNumber));
    const batch = path.join(dir, 'put.batch');
    fs.writeFileSync(batch, `put ${file}\n`);
    const put = () =>
      run('sftp', [...SSH_OPTS, '-oIdentitiesOnly=yes', '-i', key.file, '-P', String(app.sftpPort), '-b', batch, `${account.ftpUsername}@127.0.0.1`]);

    await s3.kill();
    const refused = await put();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/could not be stored right now|Failure/i);
    expect(await app.imports(account.liveKey)).toEqual([]);

    await s3.start();
    const sent = await put();
    expect(sent.code, sent.stderr).toBe(0);
    await expect.poll(async () => (await app.imports(account.liveKey)).map((r) => r.status), { timeout: 30_000 }).toEqual(['attached']);
    expect((await app.documentsOf(invoice.id)).filter((d) => !d.deleted_at)).toHaveLength(1);
    // every object in the store is one a row points at: the refused put left none behind
    const referenced = new Set(
      (
        await app.svc.container.db.query<{ sha: string }>(
          'select content_sha256 as sha from intake_staging where content_sha256 is not null union select content_sha256 from documents',
        )
      ).map((r) => r.sha),
    );
    for await (const o of app.svc.container.store.list()) expect(referenced.has(o.sha256)).toBe(true);
  });
});
