// Test harness for the SFTP channel: the real service (roles api, worker, ftp, sftp) through the
// FTP harness (fresh PostgreSQL database, private Redis prefix, random ports), and clients: ssh2's
// own client for the edge cases, and the real command-line clients as processes with a hard timeout.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ssh2, { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import type { Config } from '../../src/config/config.ts';
import { sshFingerprint } from '../../src/domain/ssh-public-keys.ts';
import { startFtpApp, type FtpAccount, type FtpApp } from '../ftp/ftp-harness.ts';
import { afterAll, beforeAll } from 'vitest';

export { bigPdf } from '../ftp/ftp-harness.ts';

export type SftpApp = FtpApp & { sftpPort: number; adminToken: string };

/** A test file's service (sftp role on), an account and a scratch folder: made before its tests, removed after. */
export function sftpTestFile(): { app: SftpApp; account: FtpAccount; dir: string } {
  const file = {} as { app: SftpApp; account: FtpAccount; dir: string };
  beforeAll(async () => {
    file.app = await startSftpApp();
    file.account = await file.app.ftpAccount();
    file.dir = tempDir();
  });
  afterAll(async () => {
    await file.app?.close();
    if (file.dir) fs.rmSync(file.dir, { recursive: true, force: true });
  });
  return file;
}

export async function startSftpApp(config: Partial<Config> = {}): Promise<SftpApp> {
  const app = await startFtpApp({ config: { roles: ['api', 'worker', 'ftp', 'sftp'], sftpHost: '127.0.0.1', sftpPort: 0, ...config } });
  if (!app.svc.sftpPort) throw new Error('the sftp role did not start');
  return Object.assign(app, { sftpPort: app.svc.sftpPort, adminToken: app.config.adminToken! });
}

/** Admin API calls with the admin token. */
export const admin = (app: SftpApp, method: string, url: string, body?: unknown) => app.request(method, url, { key: app.adminToken, body });

// ---- ssh2's client ----

export interface Connected {
  client: Client;
  sftp: SFTPWrapper;
  /** the host key fingerprint the client saw */
  hostKey: string;
}

/** Logs in and opens the sftp subsystem; rejects with the client's error (e.g. authentication failed). */
export function connectSftp(port: number, auth: Pick<ConnectConfig, 'username' | 'password' | 'privateKey'>, localAddress = '127.0.0.1'): Promise<Connected> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKey = '';
    const timer = setTimeout(() => {
      client.end();
      reject(new Error('sftp connect timed out'));
    }, 20_000);
    client.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // a server that turns the connection away may just close it (a no-op once connected); an
    // error that comes with the close (authentication failed) is the better reason
    client.on('close', () =>
      setImmediate(() => {
        clearTimeout(timer);
        reject(new Error('connection closed before the sftp session opened'));
      }),
    );
    client.on('ready', () => {
      client.sftp((err, sftp) => {
        clearTimeout(timer);
        if (err) return reject(err);
        resolve({ client, sftp, hostKey });
      });
    });
    client.connect({
      host: '127.0.0.1',
      port,
      localAddress,
      readyTimeout: 20_000,
      ...auth,
      hostVerifier: (key: Buffer) => {
        hostKey = sshFingerprint(key);
        return true;
      },
    });
  });
}

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));

export const writeFile = (sftp: SFTPWrapper, name: string, bytes: Buffer) => call<void>((cb) => sftp.writeFile(name, bytes, cb));
export const readFile = (sftp: SFTPWrapper, name: string) => call<Buffer>((cb) => sftp.readFile(name, cb));
export const readdir = (sftp: SFTPWrapper, name = '.') => call<ssh2.FileEntryWithStats[]>((cb) => sftp.readdir(name, cb));
export const rename = (sftp: SFTPWrapper, from: string, to: string) => call<void>((cb) => sftp.rename(from, to, cb));
export const open = (sftp: SFTPWrapper, name: string, flags: ssh2.OpenMode) => call<Buffer>((cb) => sftp.open(name, flags, cb));
export const write = (sftp: SFTPWrapper, h: Buffer, data: Buffer, at: number) => call<void>((cb) => sftp.write(h, data, 0, data.length, at, cb));
export const close = (sftp: SFTPWrapper, h: Buffer) => call<void>((cb) => sftp.close(h, cb));

/** The SFTP status message a promise failed with (throws if it succeeded). */
export async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: number }).code, message: (e as Error).message };
  }
  throw new Error('expected an SFTP refusal, got success');
}

// ---- processes ----

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a client process that is killed after `timeoutMs` (never holds the suite). */
export function run(cmd: string, args: string[], o: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: o.timeoutMs ?? 30_000, killSignal: 'SIGKILL', env: { ...process.env, ...o.env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as any).code === 'number' ? (err as any).code : 124) : 0, stdout, stderr });
    });
    // a client that exits before reading its input closes the pipe: its exit status tells, not EPIPE
    child.stdin?.on('error', () => {});
    child.stdin?.end(o.input ?? '');
  });
}

export function tempDir(prefix = 'ii-sftp-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** OpenSSH options for a throwaway client: no known_hosts, no agent, no config. */
export const SSH_OPTS = ['-F', '/dev/null', '-oStrictHostKeyChecking=no', '-oUserKnownHostsFile=/dev/null', '-oIdentityAgent=none', '-oConnectTimeout=10'];

/** OpenSSH's sftp logging in to 127.0.0.1 with a password (an API key or an upload key's secret) given by sshpass, running `batch` (sftp -b). */
export function sftpWithPassword(o: {
  port: number | string;
  user: string;
  password: string;
  batch: string;
  options?: string[];
  timeoutMs?: number;
}): Promise<Run> {
  const args = ['-e', 'sftp', ...SSH_OPTS, '-oBatchMode=no', '-oPreferredAuthentications=password', '-oPubkeyAuthentication=no', ...(o.options ?? [])];
  return run('sshpass', [...args, '-P', String(o.port), '-b', o.batch, `${o.user}@127.0.0.1`], { env: { SSHPASS: o.password }, timeoutMs: o.timeoutMs });
}

/** An Ed25519 (or other) key pair made with ssh-keygen into `dir`. */
export async function sshKeygen(dir: string, type = 'ed25519', bits?: number): Promise<{ file: string; publicKey: string }> {
  const file = path.join(dir, `id_${type}_${Math.random().toString(36).slice(2, 8)}`);
  const res = await run('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', 'test key', '-f', file]);
  if (res.code !== 0) throw new Error(`ssh-keygen: ${res.stderr}`);
  return { file, publicKey: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}
