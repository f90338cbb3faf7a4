// Real clients with upload keys (issue 44), on two nodes sharing one database and one Redis prefix
// (as behind a load balancer): lftp (FTPS), Python ftplib (FTP_TLS), rclone (its ftp backend,
// explicit TLS), curl (FTPS, and POST /v2/imports with the key as Bearer) and OpenSSH sftp (the key
// as password, and an SSH key registered for the upload key) upload with an upload key, the file
// carries the key; the same clients with the API key (or an SSH key of the account) still work;
// once the key is revoked on node A, a login or request started within 1 s is refused by every
// client on both nodes (node B had the key in its cache).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { run, type ClientRun } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpAccount, type FtpApp } from './ftp-harness.ts';
import { SSH_OPTS, sftpWithPassword, sshKeygen, tempDir } from '../sftp/sftp-harness.ts';

let a: FtpApp;
let b: FtpApp;
let acct: FtpAccount;
let dir: string;

beforeAll(async () => {
  const config: Partial<Config> = {
    redisPrefix: `iitest${randomToken(8)}`,
    keyCacheMs: 60_000,
    roles: ['api', 'worker', 'ftp', 'sftp'],
    sftpHost: '127.0.0.1',
    sftpPort: 0,
  };
  a = await startFtpApp({ config });
  b = await startFtpApp({ config, db: a.db });
  acct = await a.ftpAccount();
  dir = tempDir('ii-upk-clients-');
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `secret`: the upload key or API key (a password or Bearer), or an identity file (the SSH-key client) */
type Send = (app: FtpApp, secret: string, local: string, remote: string) => Promise<ClientRun>;
interface Client {
  name: string;
  send: Send;
  channel: 'ftp' | 'sftp' | 'http';
  /** what a refused client prints */
  refused: RegExp;
  /** the secrets this client uses for the upload key and for the account's own key (default: the keys themselves) */
  secrets?: (up: { id: string; key: string }) => Promise<{ upload: string; api: string }>;
}

const lftp: Send = (app, password, local, remote) =>
  run('lftp', [
    '-c',
    [
      'set cmd:fail-exit yes',
      'set net:max-retries 1',
      'set net:timeout 10',
      'set ssl:verify-certificate no',
      'set ftp:ssl-force yes',
      'set ftp:ssl-protect-data yes',
      `open -u "${acct.ftpUsername}","${password}" ftp://127.0.0.1:${app.port}`,
      `put "${local}" -o "${remote}"`,
      'bye',
    ].join('; '),
  ]);

const FTPLIB = `
import ftplib, ssl, sys
port, user, password, local, remote = sys.argv[1:6]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
ftp = ftplib.FTP_TLS(context=context, timeout=20)
ftp.connect('127.0.0.1', int(port))
ftp.login(user, password)
ftp.prot_p()
with open(local, 'rb') as f:
    print(ftp.storbinary('STOR ' + remote, f))
ftp.quit()
`;
const ftplib: Send = (app, password, local, remote) => run('python3', ['-c', FTPLIB, String(app.port), acct.ftpUsername, password, local, remote]);

const rclone: Send = async (app, password, local, remote) => {
  const obscured = await new Promise<string>((resolve, reject) =>
    execFile('rclone', ['obscure', password], (err, out) => (err ? reject(err) : resolve(out.trim()))),
  );
  const env = {
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_II_TYPE: 'ftp',
    RCLONE_CONFIG_II_HOST: '127.0.0.1',
    RCLONE_CONFIG_II_PORT: String(app.port),
    RCLONE_CONFIG_II_USER: acct.ftpUsername,
    RCLONE_CONFIG_II_PASS: obscured,
    RCLONE_CONFIG_II_EXPLICIT_TLS: 'true',
    RCLONE_CONFIG_II_NO_CHECK_CERTIFICATE: 'true',
  };
  return run('rclone', ['copyto', '--retries', '1', '--low-level-retries', '1', local, `ii:${remote}`], { env });
};

// curl's own exit status tells a refused login (67) from a transfer error; -v prints the 530
const curlFtps: Send = (app, password, local, remote) =>
  run('curl', ['-sS', '-v', '--ssl-reqd', '-k', '--user', `${acct.ftpUsername}:${password}`, '-T', local, `ftp://127.0.0.1:${app.port}/${remote}`]);

// POST /v2/imports through the node's HTTPS (its self-signed certificate); --fail-with-body: a 4xx is a failed run
const curlApi: Send = (app, bearer, local, remote) => {
  const body = path.join(dir, `${remote}.json`);
  fs.writeFileSync(body, JSON.stringify({ filename: remote, content: fs.readFileSync(local).toString('base64') }));
  return run('curl', [
    '-sS',
    '-k',
    '--fail-with-body',
    '-H',
    `Authorization: Bearer ${bearer}`,
    '-H',
    'Content-Type: application/json',
    '--data-binary',
    `@${body}`,
    `${app.svc.apiUrl}/v2/imports`,
  ]);
};

const sftpBatch = (local: string, remote: string) => {
  const batch = path.join(dir, `${remote}.batch`);
  fs.writeFileSync(batch, `put ${local} ${remote}\n`);
  return batch;
};
const sftpPort = (app: FtpApp) => String(app.svc.sftpPort);
const sftpPassword: Send = (app, password, local, remote) =>
  sftpWithPassword({ port: sftpPort(app), user: acct.ftpUsername, password, batch: sftpBatch(local, remote), options: ['-oNumberOfPasswordPrompts=1'] });
const sftpIdentity: Send = (app, identity, local, remote) =>
  run('sftp', [
    ...SSH_OPTS,
    '-oBatchMode=yes',
    '-oPreferredAuthentications=publickey',
    '-oPasswordAuthentication=no',
    '-oIdentitiesOnly=yes',
    '-i',
    identity,
    '-P',
    sftpPort(app),
    '-b',
    sftpBatch(local, remote),
    `${acct.ftpUsername}@127.0.0.1`,
  ]);

/** one SSH key registered for the upload key (by the owner, through the API), one for the account's live mode (by the operator) */
const sshKeySecrets = async (up: { id: string }) => {
  const [forUpload, forAccount] = [await sshKeygen(dir), await sshKeygen(dir)];
  const added = await a.request('POST', `/v2/account/upload-keys/${up.id}/ssh-keys`, { key: acct.liveKey, body: { publicKey: forUpload.publicKey } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const own = await a.request('POST', `/admin/accounts/${acct.id}/ssh-keys/live`, { key: a.config.adminToken!, body: { publicKey: forAccount.publicKey } });
  expect(own.status, JSON.stringify(own.body)).toBe(201);
  return { upload: forUpload.file, api: forAccount.file };
};

const FTP_REFUSED = /530|Login incorrect|Login failed/i;
const CLIENTS: Client[] = [
  { name: 'lftp', send: lftp, channel: 'ftp', refused: FTP_REFUSED },
  { name: 'Python ftplib', send: ftplib, channel: 'ftp', refused: FTP_REFUSED },
  { name: 'rclone', send: rclone, channel: 'ftp', refused: FTP_REFUSED },
  { name: 'curl FTPS', send: curlFtps, channel: 'ftp', refused: /< 530/ },
  { name: 'curl POST /v2/imports', send: curlApi, channel: 'http', refused: /error: 401|"status":\s*401/ },
  { name: 'OpenSSH sftp password', send: sftpPassword, channel: 'sftp', refused: /Permission denied/ },
  { name: 'OpenSSH sftp SSH key of the upload key', send: sftpIdentity, channel: 'sftp', refused: /Permission denied/, secrets: sshKeySecrets },
];

const pdf = async (name: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, await makePdf(name));
  return file;
};
const recordOf = async (filename: string) => (await a.imports(acct.liveKey)).find((r) => r.filename === filename);

describe('real clients with an upload key on two nodes', () => {
  for (const client of CLIENTS) {
    it(`${client.name}: uploads with an upload key on both nodes and with the API key; the key revoked on node A is refused on A and B within 1 s`, async () => {
      const tag = client.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const made = await a.request('POST', '/v2/account/upload-keys', { key: acct.liveKey, body: { name: `${client.name} job`, networks: ['127.0.0.0/8'] } });
      expect(made.status).toBe(201);
      const up = made.body as { id: string; key: string };
      const secrets = client.secrets ? await client.secrets(up) : { upload: up.key, api: acct.liveKey };
      for (const [node, app] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const remote = `${tag}-upload-key-${node}.pdf`;
        const res = await client.send(app, secrets.upload, await pdf(remote), remote);
        expect(res.code, res.stderr).toBe(0);
        expect(await recordOf(remote)).toMatchObject({ channel: client.channel, uploadKey: up.id });
      }
      const byApiKey = `${tag}-api-key.pdf`;
      const apiRun = await client.send(b, secrets.api, await pdf(byApiKey), byApiKey);
      expect(apiRun.code, apiRun.stderr).toBe(0);
      expect(await recordOf(byApiKey)).toMatchObject({ channel: client.channel, uploadKey: null });

      const late = `${tag}-after-revoke.pdf`;
      const file = await pdf(late);
      expect((await a.request('DELETE', `/v2/account/upload-keys/${up.id}`, { key: acct.liveKey })).status).toBe(204);
      const revoked = performance.now();
      const attempts = await Promise.all(
        [a, b].map(async (app) => ({ startedMs: performance.now() - revoked, run: await client.send(app, secrets.upload, file, late) })),
      );
      for (const { startedMs, run: r } of attempts) {
        expect(startedMs).toBeLessThan(1000);
        expect(r.code).not.toBe(0);
        expect(`${r.stdout}\n${r.stderr}`).toMatch(client.refused);
      }
      expect(await recordOf(late)).toBeUndefined();
      // the API key goes on working after the refusals
      const still = `${tag}-api-key-after.pdf`;
      const after = await client.send(a, secrets.api, await pdf(still), still);
      expect(after.code, after.stderr).toBe(0);
    });
  }
});
