// The host key a user verifies: the fingerprints the admin API, `npm run admin -- show-account`
// and the start-up log show are the ones OpenSSH's client sees; SFTP_HOST_KEY replaces the
// generated keys; SSH keys are managed through the CLI, and removing one ends the sessions it opened.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ensureHostKeys, loadHostKeys } from '../../src/channels/sftp/host-keys.ts';
import { ROOT } from '../../testkit/paths.ts';
import { admin, connectSftp, readdir, refusal, run, sshKeygen, sftpTestFile, sftpWithPassword } from './sftp-harness.ts';

const setup = sftpTestFile();

/** `npm run admin -- ...` against the service (HTTPS with its own certificate). */
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/admin.ts'), ...args], {
    env: { ADMIN_URL: setup.app.svc.apiUrl!, ADMIN_TOKEN: setup.app.adminToken, TLS_CERT: setup.app.config.tlsCert!, TLS_KEY: setup.app.config.tlsKey! },
  });

/** The host key OpenSSH's client reports for this host key algorithm. */
async function fingerprintSeenBy(algorithm: string): Promise<string> {
  const batch = path.join(setup.dir, 'bye.batch');
  fs.writeFileSync(batch, 'bye\n');
  const res = await sftpWithPassword({
    port: setup.app.sftpPort,
    user: setup.account.ftpUsername,
    password: setup.account.liveKey,
    batch,
    options: ['-v', `-oHostKeyAlgorithms=${algorithm}`],
  });
  expect(res.code, res.stderr).toBe(0);
  return /Server host key: \S+ (SHA256:\S+)/.exec(res.stderr)![1];
}

describe('host keys', () => {
  it('the admin API, the CLI and the client agree on the Ed25519 and RSA fingerprints', async () => {
    const shown = await admin(setup.app, 'GET', `/admin/accounts/${setup.account.id}`);
    expect(shown.status).toBe(200);
    const keys: { type: string; fingerprint: string }[] = shown.body.sftpHostKeys;
    expect(keys.map((k) => k.type)).toEqual(['ssh-ed25519', 'ssh-rsa']);
    const printed = await cli('show-account', setup.account.id);
    expect(printed.code, printed.stderr).toBe(0);
    for (const k of keys) expect(printed.stdout).toContain(`SFTP host key:       ${k.fingerprint}`);
    expect(await fingerprintSeenBy('ssh-ed25519')).toBe(keys[0].fingerprint);
    expect(await fingerprintSeenBy('rsa-sha2-512')).toBe(keys[1].fingerprint);
    const { client, hostKey } = await connectSftp(setup.app.sftpPort, { username: setup.account.ftpUsername, password: setup.account.liveKey });
    client.end();
    expect(keys.map((k) => k.fingerprint)).toContain(hostKey);
    // and the start-up log line
    const listening = setup.app.logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'sftp listening');
    expect(listening.hostKeys).toEqual(keys);
  });

  it('are made once: a restart on the same DATA_DIR keeps them', () => {
    const again = loadHostKeys({ dataDir: setup.app.config.dataDir });
    expect(again.fingerprints).toEqual(loadHostKeys({ dataDir: setup.app.config.dataDir }).fingerprints);
  });

  it('are made off the main thread on a first start, written 0600, and read again (not made again) by the next', async () => {
    const dataDir = fs.mkdtempSync(path.join(setup.dir, 'fresh-'));
    let turns = 0; // the event loop keeps turning while RSA 3072 is generated in libuv's threads
    const spin = () => void setImmediate(() => (turns++, making && spin()));
    let making = true;
    spin();
    const made = await ensureHostKeys({ dataDir }).finally(() => (making = false));
    expect(turns).toBeGreaterThan(10);
    expect(made.fingerprints.map((k) => k.type)).toEqual(['ssh-ed25519', 'ssh-rsa']);
    for (const f of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) expect(fs.statSync(path.join(dataDir, 'sftp', f)).mode & 0o777).toBe(0o600);
    expect((await ensureHostKeys({ dataDir })).keys).toEqual(made.keys);
    expect(loadHostKeys({ dataDir }).fingerprints).toEqual(made.fingerprints);
  });

  it('SFTP_HOST_KEY (a file or the PEM itself) replaces them, with the fingerprint ssh-keygen shows', async () => {
    const key = await sshKeygen(setup.dir);
    const expected = /(SHA256:\S+)/.exec((await run('ssh-keygen', ['-lf', `${key.file}.pub`])).stdout)![1];
    expect(loadHostKeys({ dataDir: setup.dir, hostKey: key.file }).fingerprints).toEqual([{ type: 'ssh-ed25519', fingerprint: expected }]);
    expect(loadHostKeys({ dataDir: setup.dir, hostKey: fs.readFileSync(key.file, 'utf8') }).fingerprints[0].fingerprint).toBe(expected);
    expect(() => loadHostKeys({ dataDir: setup.dir, hostKey: `${key.file}.pub` })).toThrow(/not a readable private key/);
  });
});

describe('SSH keys through the CLI', () => {
  it('adds, lists and removes a key; removal ends its session at the next operation', async () => {
    const key = await sshKeygen(setup.dir);
    const added = await cli('add-ssh-key', setup.account.id, 'live', `${key.file}.pub`, '--json');
    expect(added.code, added.stderr).toBe(0);
    const { id, fingerprint } = JSON.parse(added.stdout);
    expect((await cli('list-ssh-keys', setup.account.id)).stdout).toContain(fingerprint);
    expect((await cli('add-ssh-key', setup.account.id, 'test', `${key.file}.pub`)).stderr).toMatch(/already registered for live/);
    expect((await cli('add-ssh-key', setup.account.id, 'live', key.file)).stderr).toMatch(/private key/);
    const session = await connectSftp(setup.app.sftpPort, { username: setup.account.ftpUsername, privateKey: fs.readFileSync(key.file) });
    await readdir(session.sftp);
    expect((await cli('remove-ssh-key', setup.account.id, id)).code).toBe(0);
    await refusal(readdir(session.sftp));
    await vi.waitFor(() => expect((session.client as any)._sock?.destroyed ?? true).toBe(true));
    await expect(connectSftp(setup.app.sftpPort, { username: setup.account.ftpUsername, privateKey: fs.readFileSync(key.file) })).rejects.toThrow(
      /authentication/i,
    );
  });
});
