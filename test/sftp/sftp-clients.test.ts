// Real SFTP clients as processes against the service: OpenSSH sftp in batch mode (password through
// sshpass, and a registered key), scp in SFTP mode (-s), rclone's sftp backend. Each upload must
// end up attached to its invoice.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, bigPdf, run, SSH_OPTS, sshKeygen, sftpTestFile, tempDir } from './sftp-harness.ts';

const setup = sftpTestFile();

/** An invoice and a local PDF named after its number. */
async function invoiceFile(key = setup.account.liveKey): Promise<{ invoice: { id: string; invoiceNumber: string }; file: string }> {
  const invoice = await setup.app.invoice(key);
  const file = path.join(setup.dir, `${invoice.invoiceNumber}.pdf`);
  fs.writeFileSync(file, await bigPdf(20_000, invoice.invoiceNumber));
  return { invoice, file };
}

async function expectAttached(key: string, invoiceNumber: string) {
  await expect.poll(async () => (await setup.app.imports(key)).find((r) => r.filename === `${invoiceNumber}.pdf`)?.status, { timeout: 20_000 }).toBe('attached');
}

describe('OpenSSH sftp -b', () => {
  it('uploads with the live key as password (sshpass) and lists the upload with its status', async () => {
    const { invoice, file } = await invoiceFile();
    const batch = path.join(setup.dir, 'put.batch');
    fs.writeFileSync(batch, `put ${file}\nls -l\n`);
    const res = await run('sshpass', ['-e', 'sftp', ...SSH_OPTS, '-oBatchMode=no', '-oPreferredAuthentications=password', '-oPubkeyAuthentication=no', '-P', String(setup.app.sftpPort), '-b', batch, `${setup.account.ftpUsername}@127.0.0.1`], { env: { SSHPASS: setup.account.liveKey } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`${invoice.invoiceNumber}.pdf`);
    await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
    const [record] = (await setup.app.imports(setup.account.liveKey)).filter((r) => r.filename === `${invoice.invoiceNumber}.pdf`);
    expect(record.channel).toBe('sftp');
  });

  it('uploads with a registered Ed25519 key into the mode it is registered for', async () => {
    const key = await sshKeygen(setup.dir);
    const added = await admin(setup.app, 'POST', `/admin/accounts/${setup.account.id}/ssh-keys/test`, { publicKey: key.publicKey });
    expect(added.status).toBe(201);
    const { invoice, file } = await invoiceFile(setup.account.testKey);
    const batch = path.join(setup.dir, 'key.batch');
    fs.writeFileSync(batch, `put ${file}\n`);
    const res = await run('sftp', [...SSH_OPTS, '-oIdentitiesOnly=yes', '-i', key.file, '-P', String(setup.app.sftpPort), '-b', batch, `${setup.account.ftpUsername}@127.0.0.1`]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.testKey, invoice.invoiceNumber);
  });

  it('refuses mkdir, delete and paths outside the root, and fails the batch', async () => {
    const { invoice, file } = await invoiceFile();
    for (const command of ['mkdir sub', `put ${file} ../${invoice.invoiceNumber}.pdf`, `put ${file} sub/${invoice.invoiceNumber}.pdf`, 'rm whatever.pdf', 'ln -s a.pdf b.pdf']) {
      const batch = path.join(setup.dir, 'bad.batch');
      fs.writeFileSync(batch, `${command}\n`);
      const res = await run('sshpass', ['-e', 'sftp', ...SSH_OPTS, '-oBatchMode=no', '-oPubkeyAuthentication=no', '-P', String(setup.app.sftpPort), '-b', batch, `${setup.account.ftpUsername}@127.0.0.1`], { env: { SSHPASS: setup.account.liveKey } });
      expect(res.code, command).not.toBe(0);
    }
    expect((await setup.app.imports(setup.account.liveKey)).some((r) => r.filename === `${invoice.invoiceNumber}.pdf`)).toBe(false);
  });
});

describe('scp -s (SFTP mode)', () => {
  it('uploads with a registered key', async () => {
    const key = await sshKeygen(setup.dir, 'ecdsa');
    expect((await admin(setup.app, 'POST', `/admin/accounts/${setup.account.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
    const { invoice, file } = await invoiceFile();
    const res = await run('scp', ['-s', ...SSH_OPTS, '-oIdentitiesOnly=yes', '-i', key.file, '-P', String(setup.app.sftpPort), file, `${setup.account.ftpUsername}@127.0.0.1:`]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
  });

  it('uploads with an RSA key (rsa-sha2-512)', async () => {
    const key = await sshKeygen(setup.dir, 'rsa', 3072);
    expect((await admin(setup.app, 'POST', `/admin/accounts/${setup.account.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
    const { invoice, file } = await invoiceFile();
    const res = await run('scp', ['-s', ...SSH_OPTS, '-oIdentitiesOnly=yes', '-i', key.file, '-P', String(setup.app.sftpPort), file, `${setup.account.ftpUsername}@127.0.0.1:/${invoice.invoiceNumber}.pdf`]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
  });
});

describe('rclone sftp backend', () => {
  it('copies a folder of PDFs with an obscured password and sees them in the listing', async () => {
    const src = tempDir('ii-rclone-');
    const files = await Promise.all([0, 1].map(async () => {
      const { invoice, file } = await invoiceFile();
      fs.copyFileSync(file, path.join(src, path.basename(file)));
      return invoice;
    }));
    const obscured = (await run('rclone', ['obscure', setup.account.liveKey])).stdout.trim();
    const env = {
      RCLONE_CONFIG: '/dev/null',
      RCLONE_CONFIG_II_TYPE: 'sftp', RCLONE_CONFIG_II_HOST: '127.0.0.1', RCLONE_CONFIG_II_PORT: String(setup.app.sftpPort),
      RCLONE_CONFIG_II_USER: setup.account.ftpUsername, RCLONE_CONFIG_II_PASS: obscured,
      RCLONE_CONFIG_II_SHELL_TYPE: 'none', RCLONE_CONFIG_II_DISABLE_HASHCHECK: 'true',
    };
    const copy = await run('rclone', ['copy', '--contimeout', '10s', '--timeout', '20s', '--retries', '1', src, 'ii:'], { env });
    expect(copy.code, copy.stderr).toBe(0);
    for (const invoice of files) await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
    const ls = await run('rclone', ['lsf', '--contimeout', '10s', 'ii:'], { env });
    expect(ls.code, ls.stderr).toBe(0);
    for (const invoice of files) expect(ls.stdout).toContain(`${invoice.invoiceNumber}.pdf`);
    fs.rmSync(src, { recursive: true, force: true });
  });
});
