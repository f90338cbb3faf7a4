// Upload keys (issue 44) as the FTP/FTPS/SFTP password, with the account's FTP user name, through
// real clients: curl over FTPS and OpenSSH sftp (sshpass). The file lands on the record with the
// key's id and the key lists it; its networks are checked against the client's address; a revoked
// key, another account's key and a key from outside its networks log in nowhere; the API key
// keeps working beside them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { curlUpload, intakeIdOf } from '../ftp/ftp-clients.ts';
import { sftpTestFile, sftpWithPassword } from './sftp-harness.ts';

const setup = sftpTestFile();

const makeKey = async (key: string, body: Record<string, unknown>) => {
  const res = await setup.app.request('POST', '/v2/account/upload-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string };
};
const pdfFile = async (name: string) => {
  const file = path.join(setup.dir, name);
  fs.writeFileSync(file, await makePdf(name));
  return file;
};
const sftpPut = async (user: string, password: string, file: string) => {
  const batch = path.join(setup.dir, `${path.basename(file)}.batch`);
  fs.writeFileSync(batch, `put ${file}\n`);
  return sftpWithPassword({ port: setup.app.sftpPort, user, password, batch, options: ['-oNumberOfPasswordPrompts=1'] });
};
const usedBy = async (id: string) =>
  ((await setup.app.request('GET', '/v2/account/upload-keys', { key: setup.account.liveKey })).body.uploadKeys as { id: string; lastUsed: unknown }[]).find(
    (k) => k.id === id,
  )?.lastUsed;

describe('an upload key as the FTP and SFTP password', () => {
  it('uploads over FTPS (curl) and SFTP (OpenSSH sftp); the records name the key, which lists them; the API key still works', async () => {
    const { ftpUsername, liveKey } = setup.account;
    const up = await makeKey(liveKey, { name: 'Exact export job', networks: ['127.0.0.0/8'] });
    const ftps = await curlUpload(setup.app.port, ftpUsername, up.key, await pdfFile('by-ftps.pdf'), 'by-ftps.pdf', { tls: true });
    expect(ftps.code, ftps.stderr).toBe(0);
    const sftp = await sftpPut(ftpUsername, up.key, await pdfFile('by-sftp.pdf'));
    expect(sftp.code, sftp.stderr).toBe(0);
    const byApiKey = await curlUpload(setup.app.port, ftpUsername, liveKey, await pdfFile('by-api-key.pdf'), 'by-api-key.pdf', { tls: true });
    expect(byApiKey.code, byApiKey.stderr).toBe(0);

    const all = await setup.app.imports(liveKey);
    const ftpRecord = all.find((r) => r.id === intakeIdOf(ftps.stderr));
    expect(ftpRecord).toMatchObject({ channel: 'ftp', filename: 'by-ftps.pdf', uploadKey: up.id });
    expect(all.find((r) => r.filename === 'by-sftp.pdf')).toMatchObject({ channel: 'sftp', uploadKey: up.id });
    expect(all.find((r) => r.filename === 'by-api-key.pdf')).toMatchObject({ channel: 'ftp', uploadKey: null });
    const listed = (await setup.app.request('GET', '/v2/imports', { key: up.key })).body.imports.map((r: { filename: string }) => r.filename).sort();
    expect(listed).toEqual(['by-ftps.pdf', 'by-sftp.pdf']);
    expect(await usedBy(up.id)).toMatchObject({ address: '127.0.0.1', channel: expect.stringMatching(/^(ftp|sftp|http)$/) });
    // the API key's own use is noted too, per channel and address (the dashboard lists it)
    await expect
      .poll(async () => (await setup.app.svc.container.accounts.keyUses({ accountId: setup.account.id, mode: 'live' })).map((u) => `${u.channel} ${u.address}`))
      .toContain('ftp 127.0.0.1');
  });

  it("refuses a key from outside its networks, a revoked key and another account's key, over FTPS and SFTP", async () => {
    const { ftpUsername, liveKey } = setup.account;
    const outside = await makeKey(liveKey, { name: 'Office scanner', networks: ['192.0.2.0/24'] });
    const revoked = await makeKey(liveKey, { name: 'Old job' });
    expect((await setup.app.request('DELETE', `/v2/account/upload-keys/${revoked.id}`, { key: liveKey })).status).toBe(204);
    const other = await setup.app.ftpAccount();
    const foreign = await makeKey(other.liveKey, { name: 'Their job' });
    const file = await pdfFile('refused.pdf');
    for (const key of [outside.key, revoked.key, foreign.key]) {
      const ftps = await curlUpload(setup.app.port, ftpUsername, key, file, 'refused.pdf', { tls: true });
      expect(ftps.code, ftps.stderr).toBe(67); // curl: the login was denied
      expect(ftps.stderr).toContain('530');
      const sftp = await sftpPut(ftpUsername, key, file);
      expect(sftp.code).not.toBe(0);
      expect(sftp.stderr).toMatch(/Permission denied/);
    }
    expect((await setup.app.imports(liveKey)).filter((r) => r.filename === 'refused.pdf')).toEqual([]);
    expect(await usedBy(outside.id)).toBeNull();
  });
});
