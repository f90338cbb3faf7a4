// The FTP clients the tests drive from this process: basic-ftp (as a library) and curl (as a
// process), against the service that ftp-harness.ts starts.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { Client, FTPError } from 'basic-ftp';

export async function connectFtp(port: number, user: string, password: string, secure = true, timeout = 10_000): Promise<Client> {
  const client = new Client(timeout);
  try {
    await client.access({ host: '127.0.0.1', port, user, password, secure, secureOptions: { rejectUnauthorized: false } });
  } catch (e) {
    client.close();
    throw e;
  }
  return client;
}

/** The FTP reply code a basic-ftp promise failed with (or the error if it was not an FTP reply). */
export async function ftpCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FTPError) return e.code;
    throw e;
  }
  throw new Error('expected an FTP error reply, got success');
}

export const upload = (client: Client, name: string, bytes: Buffer) => client.uploadFrom(Readable.from([bytes]), name);

export async function download(client: Client, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await client.downloadTo(
    new Writable({
      write(c, _e, cb) {
        chunks.push(c);
        cb();
      },
    }),
    name,
  );
  return Buffer.concat(chunks);
}

/** The intake id a 226 (or 250) reply names. */
export function intakeIdOf(message: string): string {
  const m = /(imp_[A-Za-z0-9]+)/.exec(message);
  if (!m) throw new Error(`no intake id in "${message}"`);
  return m[1];
}

export interface CurlResult {
  code: number;
  stderr: string;
}

/** `curl -T file ftp://user:pass@127.0.0.1:port/name`, with --ssl-reqd -k when `tls`. */
export function curlUpload(
  port: number,
  user: string,
  password: string,
  file: string,
  remoteName: string,
  opts: { tls: boolean; extra?: string[] },
): Promise<CurlResult> {
  const args = [
    '-sS',
    '-v',
    '--user',
    `${user}:${password}`,
    '-T',
    file,
    `ftp://127.0.0.1:${port}/${remoteName}`,
    ...(opts.tls ? ['--ssl-reqd', '-k'] : []),
    ...(opts.extra ?? []),
  ];
  return new Promise((resolve) => {
    execFile('curl', args, { timeout: 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? Number((err as any).code ?? 1) : 0, stderr });
    });
  });
}

export function spawnCurl(port: number, user: string, password: string, file: string, remoteName: string, extra: string[]): ChildProcess {
  return spawn('curl', ['-sS', '--user', `${user}:${password}`, '-T', file, `ftp://127.0.0.1:${port}/${remoteName}`, '--ssl-reqd', '-k', ...extra], {
    stdio: 'ignore',
  });
}
