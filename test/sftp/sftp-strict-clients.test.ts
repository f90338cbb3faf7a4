// SSH clients that check the server's answers strictly, with each key type: rclone's sftp backend
// (Go's x/crypto) and asyncssh (/usr/bin/python3) with RSA (rsa-sha2-*), Ed25519 and ECDSA keys.
// Both give an RSA key up when PK_OK names another algorithm than the one they asked about
// (ssh2's own answer, fixed in src/channels/sftp/ssh2-adapter.ts). Each upload must be attached.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { admin, bigPdf, run, sshKeygen, sftpTestFile } from './sftp-harness.ts';

const setup = sftpTestFile();
const ASYNCSSH_JOB = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients', 'asyncssh-job.py');

const KEYS: [label: string, type: string, bits?: number][] = [
  ['RSA 3072', 'rsa', 3072],
  ['Ed25519', 'ed25519'],
  ['ECDSA P-256', 'ecdsa', 256],
  ['ECDSA P-384', 'ecdsa', 384],
];

/** A fresh account with the key registered for live mode, an invoice and its PDF. */
async function prepare(type: string, bits?: number) {
  const app = setup.app;
  const acct = await app.ftpAccount();
  const key = await sshKeygen(setup.dir, type, bits);
  expect((await admin(app, 'POST', `/admin/accounts/${acct.id}/ssh-keys/live`, { publicKey: key.publicKey })).status).toBe(201);
  const invoice = await app.invoice(acct.liveKey);
  const file = path.join(setup.dir, `${invoice.invoiceNumber}.pdf`);
  fs.writeFileSync(file, await bigPdf(20_000, invoice.invoiceNumber));
  return { acct, key, invoice, file };
}

async function expectAttached(key: string, name: string) {
  await expect.poll(async () => (await setup.app.imports(key)).find((r) => r.filename === name)?.status, { timeout: 20_000 }).toBe('attached');
}

describe('rclone sftp backend with a key', () => {
  it.each(KEYS)('%s', async (_, type, bits) => {
    const { acct, key, invoice, file } = await prepare(type, bits);
    const env = {
      RCLONE_CONFIG: '/dev/null',
      RCLONE_CONFIG_II_TYPE: 'sftp',
      RCLONE_CONFIG_II_HOST: '127.0.0.1',
      RCLONE_CONFIG_II_PORT: String(setup.app.sftpPort),
      RCLONE_CONFIG_II_USER: acct.ftpUsername,
      RCLONE_CONFIG_II_KEY_FILE: key.file,
      RCLONE_CONFIG_II_SHELL_TYPE: 'none',
      RCLONE_CONFIG_II_DISABLE_HASHCHECK: 'true',
    };
    const r = await run(
      'rclone',
      ['copyto', '--contimeout', '10s', '--timeout', '20s', '--retries', '1', '--low-level-retries', '1', file, `ii:${invoice.invoiceNumber}.pdf`],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    await expectAttached(acct.liveKey, `${invoice.invoiceNumber}.pdf`);
  });
});

describe('asyncssh with a key (upload under a temporary name, posix_rename)', () => {
  it.each(KEYS)('%s', async (_, type, bits) => {
    const { acct, key, invoice, file } = await prepare(type, bits);
    const final = `${invoice.invoiceNumber}.pdf`;
    const r = await run('/usr/bin/python3', [ASYNCSSH_JOB, String(setup.app.sftpPort), acct.ftpUsername, key.file, file, `${final}.filepart`, final]);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stdout).toContain('OK renamed');
    expect(r.stderr).not.toContain('Key mismatch');
    await expectAttached(acct.liveKey, final);
  });
});
