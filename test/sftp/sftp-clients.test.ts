// Real SFTP clients as processes against the service: OpenSSH sftp in batch mode (password through
// sshpass, and a registered key), scp in SFTP mode (-s), rclone's sftp backend. Each upload must
// end up attached to its invoice.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, bigPdf, run, SSH_OPTS, sshKeygen, sftpTestFile, tempDir, sftpWithPassword } from './sftp-harness.ts';

const setup = sftpTestFile();

/** An invoice and a local PDF named after its number. */
async function invoiceFile(key = setup.account.liveKey): Promise<{ invoice: { id: string; invoiceNumber: string }; file: string }> {
  const invoice = await setup.app.invoice(key);
  const file = path.join(setup.dir, `${invoice.invoiceNumber}.pdf`);
  fs.writeFileSync(file, await bigPdf(20_000, invoice.invoiceNumber));
  return { invoice, file };
}

async function expectAttached(key: string, invoiceNumber: string) {
  await expect
    .poll(async () => (await setup.app.imports(key)).find((r) => r.filename === `${invoiceNumber}.pdf`)?.status, { timeout: 20_000 })
    .toBe('attached');
}

/** A local PDF named after a fresh invoice, another to upload under a temporary name, and a file that fails. */
async function jobFiles(label: string) {
  const good = await invoiceFile();
  const renamed = await invoiceFile();
  const junk = path.join(setup.dir, `bad-${label}.pdf`);
  fs.writeFileSync(junk, 'this is not a PDF\n');
  return { good, renamed, junk, junkName: path.basename(junk) };
}

/** Both invoices attached, and the failed file listed with its readable .error.txt. */
async function expectJobDone(job: Awaited<ReturnType<typeof jobFiles>>, listing: string, errorText: string) {
  await expectAttached(setup.account.liveKey, job.good.invoice.invoiceNumber);
  await expectAttached(setup.account.liveKey, job.renamed.invoice.invoiceNumber);
  expect(listing).toContain(`${job.good.invoice.invoiceNumber}.pdf`);
  expect(listing).toContain(`${job.junkName}.error.txt`);
  expect(errorText).toContain(`File: ${job.junkName}`);
  expect(errorText).toContain('Reason: ');
}

describe('OpenSSH sftp -b', () => {
  it('with the live key as password (sshpass): upload, temporary name + rename, listing with statuses, the .error.txt', async () => {
    const job = await jobFiles('sftp');
    const { invoiceNumber } = job.renamed.invoice;
    const errorCopy = path.join(setup.dir, 'sftp.error.txt');
    const batch = path.join(setup.dir, 'put.batch');
    fs.writeFileSync(
      batch,
      [
        `put ${job.good.file}`,
        `put ${job.renamed.file} ${invoiceNumber}.pdf.filepart`,
        `rename ${invoiceNumber}.pdf.filepart ${invoiceNumber}.pdf`,
        `put ${job.junk}`,
        'ls -l',
        `get ${job.junkName}.error.txt ${errorCopy}`,
        '',
      ].join('\n'),
    );
    const res = await sftpWithPassword({ port: setup.app.sftpPort, user: setup.account.ftpUsername, password: setup.account.liveKey, batch });
    expect(res.code, res.stderr).toBe(0);
    // sftp -b echoes each command: the listing is what comes between `ls -l` and `get`
    const listing = res.stdout.slice(res.stdout.indexOf('sftp> ls -l'), res.stdout.indexOf('sftp> get'));
    // the status is the owner column of ls -l
    expect(listing).toMatch(new RegExp(`^-r--r--r-- +1 (received|attached) +live .* ${job.good.invoice.invoiceNumber}\\.pdf$`, 'm'));
    expect(listing).toMatch(new RegExp(` failed +live .* ${job.junkName}\\.error\\.txt$`, 'm'));
    await expectJobDone(job, listing, fs.readFileSync(errorCopy, 'utf8'));
    const [record] = (await setup.app.imports(setup.account.liveKey)).filter((r) => r.filename === `${job.good.invoice.invoiceNumber}.pdf`);
    expect(record.channel).toBe('sftp');
  });

  it('uploads with a registered Ed25519 key into the mode it is registered for', async () => {
    const key = await sshKeygen(setup.dir);
    const added = await admin(setup.app, 'POST', `/admin/accounts/${setup.account.id}/ssh-keys/test`, { publicKey: key.publicKey });
    expect(added.status).toBe(201);
    const { invoice, file } = await invoiceFile(setup.account.testKey);
    const batch = path.join(setup.dir, 'key.batch');
    fs.writeFileSync(batch, `put ${file}\n`);
    const res = await run('sftp', [
      ...SSH_OPTS,
      '-oIdentitiesOnly=yes',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      '-b',
      batch,
      `${setup.account.ftpUsername}@127.0.0.1`,
    ]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.testKey, invoice.invoiceNumber);
  });

  it('refuses mkdir, delete and paths outside the root, and fails the batch', async () => {
    const { invoice, file } = await invoiceFile();
    for (const command of [
      'mkdir sub',
      `put ${file} ../${invoice.invoiceNumber}.pdf`,
      `put ${file} sub/${invoice.invoiceNumber}.pdf`,
      'rm whatever.pdf',
      'ln -s a.pdf b.pdf',
    ]) {
      const batch = path.join(setup.dir, 'bad.batch');
      fs.writeFileSync(batch, `${command}\n`);
      const res = await sftpWithPassword({ port: setup.app.sftpPort, user: setup.account.ftpUsername, password: setup.account.liveKey, batch });
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
    const res = await run('scp', [
      '-s',
      ...SSH_OPTS,
      '-oIdentitiesOnly=yes',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      file,
      `${setup.account.ftpUsername}@127.0.0.1:`,
    ]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
  });

  it('uploads with an RSA key (rsa-sha2-512); the same key signing with SHA-1 (ssh-rsa) is refused', async () => {
    const key = await sshKeygen(setup.dir, 'rsa', 3072);
    expect((await admin(setup.app, 'POST', `/admin/accounts/${setup.account.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
    const { invoice, file } = await invoiceFile();
    const sha1 = await run('scp', [
      '-s',
      ...SSH_OPTS,
      '-oIdentitiesOnly=yes',
      '-oPubkeyAcceptedAlgorithms=ssh-rsa',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      file,
      `${setup.account.ftpUsername}@127.0.0.1:`,
    ]);
    expect(sha1.code).not.toBe(0);
    expect(sha1.stderr).toMatch(/Permission denied/);
    const res = await run('scp', [
      '-s',
      ...SSH_OPTS,
      '-oIdentitiesOnly=yes',
      '-i',
      key.file,
      '-P',
      String(setup.app.sftpPort),
      file,
      `${setup.account.ftpUsername}@127.0.0.1:/${invoice.invoiceNumber}.pdf`,
    ]);
    expect(res.code, res.stderr).toBe(0);
    await expectAttached(setup.account.liveKey, invoice.invoiceNumber);
  });
});

describe('rclone sftp backend', () => {
  it('copies a folder, uploads under a temporary name and renames it in the next session, lists, reads the .error.txt', async () => {
    const src = tempDir('ii-rclone-');
    const copied = await invoiceFile();
    fs.copyFileSync(copied.file, path.join(src, path.basename(copied.file)));
    const job = await jobFiles('rclone');
    const temp = `${job.renamed.invoice.invoiceNumber}.pdf.part`;
    const obscured = (await run('rclone', ['obscure', setup.account.liveKey])).stdout.trim();
    const env = {
      RCLONE_CONFIG: '/dev/null',
      RCLONE_CONFIG_II_TYPE: 'sftp',
      RCLONE_CONFIG_II_HOST: '127.0.0.1',
      RCLONE_CONFIG_II_PORT: String(setup.app.sftpPort),
      RCLONE_CONFIG_II_USER: setup.account.ftpUsername,
      RCLONE_CONFIG_II_PASS: obscured,
      RCLONE_CONFIG_II_SHELL_TYPE: 'none',
      RCLONE_CONFIG_II_DISABLE_HASHCHECK: 'true',
    };
    const rclone = async (...args: string[]) => {
      const res = await run('rclone', ['--contimeout', '10s', '--timeout', '20s', '--retries', '1', ...args], { env });
      expect(res.code, `rclone ${args.join(' ')}: ${res.stderr}`).toBe(0);
      return res.stdout;
    };
    await rclone('copy', src, 'ii:');
    await rclone('copyto', job.good.file, `ii:${path.basename(job.good.file)}`);
    // one session per command: the temporary upload waits for the rename of the next one
    await rclone('copyto', job.renamed.file, `ii:${temp}`);
    await rclone('moveto', `ii:${temp}`, `ii:${job.renamed.invoice.invoiceNumber}.pdf`);
    await rclone('copyto', job.junk, `ii:${job.junkName}`);
    const listing = await rclone('lsf', 'ii:');
    await expectAttached(setup.account.liveKey, copied.invoice.invoiceNumber);
    expect(listing).toContain(`${copied.invoice.invoiceNumber}.pdf`);
    expect(listing).not.toContain(temp);
    await expectJobDone(job, listing, await rclone('cat', `ii:${job.junkName}.error.txt`));
    fs.rmSync(src, { recursive: true, force: true });
  });
});
