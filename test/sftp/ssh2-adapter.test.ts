// The ssh2 adapter (src/channels/sftp/ssh2-adapter.ts) against the installed ssh2 and real clients:
// the version it is written for, the EXT_INFO server-sig-algs list as OpenSSH and asyncssh read it,
// PK_OK with the client's algorithm (asyncssh with an RSA key signs rsa-sha2-256/512 and checks
// the answer), the SFTP VERSION extensions as OpenSSH's sftp reads them, and the exit status on an
// sftp channel (scp checks it).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientKeyAlgorithm, installedSsh2Version, SERVER_SIG_ALGS, SSH2_VERSION, sftpVersionPacket } from '../../src/channels/sftp/ssh2-adapter.ts';
import { admin, bigPdf, run, SSH_OPTS, sshKeygen, sftpTestFile } from './sftp-harness.ts';

const setup = sftpTestFile();
const ASYNCSSH_JOB = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients', 'asyncssh-job.py');

async function keyedAccount(type: string, bits?: number) {
  const acct = await setup.app.ftpAccount();
  const key = await sshKeygen(setup.dir, type, bits);
  expect((await admin(setup.app, 'POST', `/admin/accounts/${acct.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
  return { acct, key };
}

describe('ssh2 adapter', () => {
  it('is written for the installed ssh2', () => {
    expect(installedSsh2Version()).toBe(SSH2_VERSION);
  });

  it('names the algorithm the client asked about, and builds a VERSION packet with its extensions', () => {
    expect(clientKeyAlgorithm('ssh-rsa', 'sha256')).toBe('rsa-sha2-256');
    expect(clientKeyAlgorithm('ssh-rsa', 'sha512')).toBe('rsa-sha2-512');
    expect(clientKeyAlgorithm('ssh-rsa', undefined)).toBe('ssh-rsa');
    expect(clientKeyAlgorithm('ssh-ed25519', undefined)).toBe('ssh-ed25519');
    expect(sftpVersionPacket([])).toEqual(Buffer.from([0, 0, 0, 5, 2, 0, 0, 0, 3]));
    const p = sftpVersionPacket();
    expect(p.readUInt32BE(0)).toBe(p.length - 4);
    expect(p.toString('latin1')).toContain('posix-rename@openssh.com');
  });

  it('OpenSSH sftp reads the server-sig-algs list and the posix-rename extension; an RSA key logs in; scp gets exit status 0', async () => {
    const { acct, key } = await keyedAccount('rsa', 3072);
    const invoice = await setup.app.invoice(acct.liveKey);
    const file = path.join(setup.dir, `${invoice.invoiceNumber}.pdf`);
    fs.writeFileSync(file, await bigPdf(10_000, invoice.invoiceNumber));
    const batch = path.join(setup.dir, 'rename.batch');
    fs.writeFileSync(batch, `put ${file} ${invoice.invoiceNumber}.pdf.part\nrename ${invoice.invoiceNumber}.pdf.part ${invoice.invoiceNumber}.pdf\n`);
    const r = await run('sftp', [
      ...SSH_OPTS,
      '-vvv',
      '-oIdentitiesOnly=yes',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      '-b',
      batch,
      `${acct.ftpUsername}@127.0.0.1`,
    ]);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain(`server-sig-algs=<${SERVER_SIG_ALGS.join(',')}>`);
    expect(r.stderr).toMatch(/Server supports extension "posix-rename@openssh.com" revision 1/);
    expect(r.stderr).toMatch(/Server accepts key: .*RSA SHA256:/);
    await expect
      .poll(async () => (await setup.app.imports(acct.liveKey)).find((i) => i.filename === `${invoice.invoiceNumber}.pdf`)?.status, { timeout: 20_000 })
      .toBe('attached');

    const copy = path.join(setup.dir, `${invoice.invoiceNumber}-copy.pdf`);
    fs.copyFileSync(file, copy);
    const scp = await run('scp', [
      '-s',
      ...SSH_OPTS,
      '-oIdentitiesOnly=yes',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      copy,
      `${acct.ftpUsername}@127.0.0.1:`,
    ]);
    expect(scp.code, scp.stderr).toBe(0);
  });

  it('asyncssh reads the same list and gets PK_OK for rsa-sha2-*', async () => {
    const { acct, key } = await keyedAccount('rsa', 3072);
    const local = path.join(setup.dir, 'asyncssh.pdf');
    fs.writeFileSync(local, await bigPdf(5_000, 'asyncssh'));
    const r = await run('/usr/bin/python3', [
      ASYNCSSH_JOB,
      String(setup.app.sftpPort),
      acct.ftpUsername,
      key.file,
      local,
      'nomatch-asyncssh.pdf.filepart',
      'nomatch-asyncssh.pdf',
    ]);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain(`server-sig-algs: ${SERVER_SIG_ALGS.join(',')}\n`);
    expect(r.stderr).toMatch(/Signing request with rsa-sha2-(256|512) key/);
  });
});
