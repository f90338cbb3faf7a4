// An upload key as an SSH key's owner (issue 44): an owner registers an SSH public key for an
// upload key (POST /v2/account/upload-keys/{id}/ssh-keys); OpenSSH sftp logging in with it (the
// account's FTP user name) acts as the upload key: the file carries the key, the key lists it,
// its networks hold, and revoking the upload key refuses the SSH key at once and ends the open
// session within 1 s. Removing the SSH key alone refuses it too. Each change is in the trail.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { connectSftp, run, SSH_OPTS, sftpTestFile, sshKeygen, writeFile } from './sftp-harness.ts';

const setup = sftpTestFile();

const makeKey = async (key: string, body: Record<string, unknown>) => {
  const res = await setup.app.request('POST', '/v2/account/upload-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string };
};
const addSshKey = (key: string, uploadKeyId: string, publicKey: string) =>
  setup.app.request('POST', `/v2/account/upload-keys/${uploadKeyId}/ssh-keys`, { key, body: { publicKey, comment: 'scanner key' } });
/** OpenSSH sftp with the private key only (no password, no agent): `put` of one PDF */
const sftpPut = async (identity: string, name: string) => {
  const file = path.join(setup.dir, name);
  fs.writeFileSync(file, await makePdf(name));
  const batch = path.join(setup.dir, `${name}.batch`);
  fs.writeFileSync(batch, `put ${file}\n`);
  return run('sftp', [
    ...SSH_OPTS,
    '-oBatchMode=yes',
    '-oPreferredAuthentications=publickey',
    '-oPasswordAuthentication=no',
    '-oIdentitiesOnly=yes',
    '-i',
    identity,
    '-P',
    String(setup.app.sftpPort),
    '-b',
    batch,
    `${setup.account.ftpUsername}@127.0.0.1`,
  ]);
};
const trail = async (action: string) =>
  (await setup.app.request('GET', `/v2/account/trail?action=${action}`, { key: setup.account.liveKey })).body.trail as any[];

describe('an SSH key of an upload key', () => {
  it('is registered for the key and listed; OpenSSH sftp with it uploads as the upload key; the trail names it', async () => {
    const { liveKey } = setup.account;
    const up = await makeKey(liveKey, { name: 'Ricoh 3rd floor', networks: ['127.0.0.0/8'] });
    const pair = await sshKeygen(setup.dir);
    const added = await addSshKey(liveKey, up.id, pair.publicKey);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({
      resource: 'ssh-key',
      mode: 'live',
      type: 'ssh-ed25519',
      fingerprint: expect.stringMatching(/^SHA256:/),
      comment: 'scanner key',
      uploadKey: up.id,
    });
    const listed = await setup.app.request('GET', `/v2/account/upload-keys/${up.id}/ssh-keys`, { key: liveKey });
    expect(listed.body.sshKeys.map((k: { id: string }) => k.id)).toEqual([added.body.id]);
    // the same public key again: 409, whoever it would belong to
    expect((await addSshKey(liveKey, up.id, pair.publicKey)).status).toBe(409);

    const put = await sftpPut(pair.file, 'by-ssh-key.pdf');
    expect(put.code, put.stderr).toBe(0);
    const record = (await setup.app.imports(liveKey)).find((r) => r.filename === 'by-ssh-key.pdf');
    expect(record).toMatchObject({ channel: 'sftp', uploadKey: up.id });
    const lastUse = async () =>
      (await setup.app.request('GET', '/v2/account/upload-keys', { key: liveKey })).body.uploadKeys.find((k: { id: string }) => k.id === up.id).lastUsed;
    await expect.poll(lastUse).toMatchObject({ address: '127.0.0.1', channel: 'sftp' });
    const byKey = (await setup.app.request('GET', '/v2/imports', { key: up.key })).body.imports.map((r: { filename: string }) => r.filename);
    expect(byKey).toEqual(['by-ssh-key.pdf']);
    const entry = (await trail('upload_key.ssh_key_added'))[0];
    expect(entry).toMatchObject({ target: up.id, detail: { name: 'Ricoh 3rd floor', fingerprint: added.body.fingerprint } });
    expect(JSON.stringify(entry)).not.toContain(pair.publicKey.split(' ')[1]);
  });

  it("holds to the upload key's networks, and another account's or the other mode's upload key cannot take it", async () => {
    const { liveKey, testKey } = setup.account;
    const far = await makeKey(liveKey, { name: 'Branch office', networks: ['192.0.2.0/24'] });
    const pair = await sshKeygen(setup.dir);
    expect((await addSshKey(liveKey, far.id, pair.publicKey)).status).toBe(201);
    const put = await sftpPut(pair.file, 'from-outside.pdf');
    expect(put.code).not.toBe(0);
    expect(put.stderr).toMatch(/Permission denied/);
    // a live upload key is not the test mode's, nor another account's
    const other = await setup.app.ftpAccount();
    const more = await sshKeygen(setup.dir);
    expect((await addSshKey(testKey, far.id, more.publicKey)).status).toBe(404);
    expect((await addSshKey(other.liveKey, far.id, more.publicKey)).status).toBe(404);
    expect((await setup.app.request('GET', `/v2/account/upload-keys/${far.id}/ssh-keys`, { key: other.liveKey })).status).toBe(404);
    // a private key is refused with the field
    const refused = await addSshKey(liveKey, far.id, fs.readFileSync(more.file, 'utf8'));
    expect(refused.status).toBe(400);
    expect(refused.body.field ?? refused.body.detail).toMatch(/publicKey|private key/);
  });

  it('revoking the upload key refuses its SSH key at once and ends the open session within 1 s; removing the SSH key refuses it', async () => {
    const { liveKey, ftpUsername } = setup.account;
    const up = await makeKey(liveKey, { name: 'Night export' });
    const pair = await sshKeygen(setup.dir);
    expect((await addSshKey(liveKey, up.id, pair.publicKey)).status).toBe(201);
    const session = await connectSftp(setup.app.sftpPort, { username: ftpUsername, privateKey: fs.readFileSync(pair.file) });
    try {
      await writeFile(session.sftp, 'before-revoke.pdf', await makePdf('before'));
      expect((await setup.app.request('DELETE', `/v2/account/upload-keys/${up.id}`, { key: liveKey })).status).toBe(204);
      const revokedAt = Date.now();
      const put = await sftpPut(pair.file, 'after-revoke.pdf');
      expect(put.code).not.toBe(0);
      expect(put.stderr).toMatch(/Permission denied/);
      await expect
        .poll(
          async () => {
            try {
              await writeFile(session.sftp, 'still-open.pdf', await makePdf('after'));
              return 'written';
            } catch {
              return 'refused';
            }
          },
          { timeout: 1000, interval: 50 },
        )
        .toBe('refused');
      expect(Date.now() - revokedAt).toBeLessThan(1000 + 2000); // the sftp run above included
    } finally {
      session.client.end();
    }
    const names = (await setup.app.imports(liveKey)).map((r) => r.filename);
    expect(names).toContain('before-revoke.pdf');
    expect(names).not.toContain('after-revoke.pdf');
    expect(names).not.toContain('still-open.pdf');

    const kept = await makeKey(liveKey, { name: 'Day export' });
    const second = await sshKeygen(setup.dir);
    const added = await addSshKey(liveKey, kept.id, second.publicKey);
    expect((await sftpPut(second.file, 'while-registered.pdf')).code).toBe(0);
    expect((await setup.app.request('DELETE', `/v2/account/upload-keys/${kept.id}/ssh-keys/${added.body.id}`, { key: liveKey })).status).toBe(204);
    expect((await sftpPut(second.file, 'after-removal.pdf')).stderr).toMatch(/Permission denied/);
    expect((await trail('upload_key.ssh_key_removed'))[0]).toMatchObject({ target: kept.id, detail: { sshKeyId: added.body.id } });
  });
});
