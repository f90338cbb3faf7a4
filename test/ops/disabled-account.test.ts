// A disabled account on the channels the operator test (operator.test.ts: API 401, FTP 530) does
// not reach: SFTP refuses OpenSSH's logins by password and by registered key, and a message sent to
// its import address through a real Dovecot becomes a failed record the operator finds.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startDovecot, type Dovecot } from '../../testkit/dovecot.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { testConfig } from '../helpers/test-app.ts';
import { invoiceMail, MAIL_TEST_SETTINGS } from '../mail/mail-harness.ts';
import { run, SSH_OPTS, sftpWithPassword, sshKeygen, tempDir } from '../sftp/sftp-harness.ts';

let dovecot: Dovecot;
let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let db: ReturnType<typeof openPostgres>;
let svc: RunningService;
let dir: string;
const config = testConfig({ roles: ['api', 'worker', 'sftp', 'mail'], sftpHost: '127.0.0.1', ...MAIL_TEST_SETTINGS });

beforeAll(async () => {
  dovecot = await startDovecot();
  pgdb = await createPgDatabase();
  db = openPostgres(pgdb.url, 5);
  svc = await startService({ ...config, imapUrl: dovecot.url() }, createLogger('silent'), { db });
  dir = tempDir();
});
afterAll(async () => {
  await svc?.stop();
  await db?.close();
  await pgdb?.drop();
  await dovecot?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const admin = async (method: string, url: string, body?: unknown) => (await httpClient(svc.apiUrl!)(method, url, { key: config.adminToken, body })).body;

describe('a disabled account', () => {
  it('SFTP refuses its password and its key; mail to it becomes a failed record', async () => {
    const account = await admin('POST', '/admin/accounts', { name: 'off' });
    const key = await sshKeygen(dir);
    await admin('POST', `/admin/accounts/${account.id}/ssh-keys/live`, { publicKey: key.publicKey });
    const batch = path.join(dir, 'batch');
    fs.writeFileSync(batch, 'ls\n');
    const target = `${account.ftpUsername}@127.0.0.1`;
    const byPassword = () => sftpWithPassword({ port: String(svc.sftpPort), user: account.ftpUsername, password: account.liveKey, batch });
    const byKey = () =>
      run('sftp', [
        ...SSH_OPTS,
        '-oIdentitiesOnly=yes',
        '-oPreferredAuthentications=publickey',
        '-i',
        key.file,
        '-P',
        String(svc.sftpPort),
        '-b',
        batch,
        target,
      ]);
    expect((await byPassword()).code).toBe(0);
    expect((await byKey()).code).toBe(0);

    expect((await admin('PATCH', `/admin/accounts/${account.id}`, { disabled: true })).disabled).toBe(true);
    expect((await byPassword()).code).toBe(5); // sshpass: the password was refused
    const keyRefused = await byKey();
    expect(keyRefused.code).toBe(255);
    expect(keyRefused.stderr).toMatch(/Permission denied \(publickey/);

    await dovecot.append(invoiceMail(account.importAddresses.live, [{ filename: 'OFF-1.pdf', content: await makePdf('off'), contentType: 'application/pdf' }]));
    await expect
      .poll(async () => (await admin('GET', '/admin/imports?status=failed')).items, { timeout: 30_000, interval: 200 })
      .toEqual([
        expect.objectContaining({
          account: account.id,
          channel: 'mail',
          filename: 'OFF-1.pdf',
          status: 'failed',
          reason: expect.stringMatching(/account is disabled/),
        }),
      ]);
  }, 120_000);
});
