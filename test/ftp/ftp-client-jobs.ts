// The FTP clients accounting systems are built on, each run as a real process with a hard timeout
// (a client that hangs fails the test within 30 s) through one job: log in, upload
// `<invoice_number>.pdf`, upload under a temporary name and rename it, upload a file that fails,
// list (LIST, NLST where the client has it) and read the failed file's `.error.txt`. Each prints
// `== LIST`, `== NLST`, `== ERROR` sections. The scripts in clients/ are docs/ftp.md's recipes.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CLIENT_TIMEOUT_MS = 30_000;
const HERE = path.dirname(new URL(import.meta.url).pathname);
const CLIENTS = path.join(HERE, 'clients');
const COMMONS_NET = '/usr/share/java/commons-net.jar';

export type TlsMode = 'explicit' | 'implicit';

export interface ClientJob {
  port: number;
  user: string;
  password: string;
  good: { local: string; remote: string };
  temp: { local: string; remote: string; final: string };
  junk: { local: string; remote: string };
}

export interface ClientRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process; killed (SIGKILL) after the hard timeout. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ClientRun> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${opts.timeoutMs ?? CLIENT_TIMEOUT_MS} ms)`;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? CLIENT_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs several commands in turn (one client session each), their output concatenated; stops at the first failure. */
async function runAll(steps: [string, string[], NodeJS.ProcessEnv?][], deadline = Date.now() + CLIENT_TIMEOUT_MS): Promise<ClientRun> {
  const all: ClientRun = { code: 0, stdout: '', stderr: '' };
  for (const [cmd, args, env] of steps) {
    const r = await run(cmd, args, { env, timeoutMs: Math.max(1000, deadline - Date.now()) });
    all.stdout += r.stdout;
    all.stderr += r.stderr;
    all.code = r.code;
    if (r.code !== 0) break;
  }
  return all;
}

const jobArgs = (j: ClientJob) => [
  String(j.port),
  j.user,
  j.password,
  j.good.local,
  j.good.remote,
  j.temp.local,
  j.temp.remote,
  j.temp.final,
  j.junk.local,
  j.junk.remote,
];

export const ftplib = (j: ClientJob) => run('python3', [path.join(CLIENTS, 'ftplib-job.py'), ...jobArgs(j)]);

export const php = (j: ClientJob) => run('php', [path.join(CLIENTS, 'php-job.php'), ...jobArgs(j)]);

export const basicFtp = (j: ClientJob, mode: TlsMode) => run(process.execPath, [path.join(CLIENTS, 'basic-ftp-job.mjs'), mode, ...jobArgs(j)]);

/** Compiles a Java job (FtpsJob.java by default) once into a temporary directory: the class path for `commonsNet`. */
export async function compileCommonsNetJob(source = 'FtpsJob.java'): Promise<string> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftps-java-'));
  const r = await run('javac', ['-cp', COMMONS_NET, '-d', out, path.join(CLIENTS, source)], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`javac failed: ${r.stderr}`);
  return out;
}

export const commonsNet = (classes: string, j: ClientJob, mode: TlsMode) => run('java', ['-cp', `${classes}:${COMMONS_NET}`, 'FtpsJob', mode, ...jobArgs(j)]);

/** Runs a compiled Java class with Commons Net on the class path. */
export const java = (classes: string, main: string, args: string[]) => run('java', ['-cp', `${classes}:${COMMONS_NET}`, main, ...args]);

/** lftp, one session: `open ftp://` with ftp:ssl-force (explicit) or `open ftps://` (implicit). */
export function lftp(j: ClientJob, mode: TlsMode): Promise<ClientRun> {
  const script = [
    'set cmd:fail-exit yes',
    'set net:max-retries 1',
    'set net:timeout 10',
    'set ssl:verify-certificate no',
    'set ftp:ssl-force yes',
    'set ftp:ssl-protect-data yes',
    `open -u "${j.user}","${j.password}" ${mode === 'implicit' ? 'ftps' : 'ftp'}://127.0.0.1:${j.port}`,
    `put "${j.good.local}" -o "${j.good.remote}"`,
    `put "${j.temp.local}" -o "${j.temp.remote}"`,
    `mv "${j.temp.remote}" "${j.temp.final}"`,
    `put "${j.junk.local}" -o "${j.junk.remote}"`,
    'echo == LIST',
    'ls',
    'echo == NLST',
    'nlist',
    'echo == ERROR',
    `cat "${j.junk.remote}.error.txt"`,
    'bye',
  ].join('; ');
  return run('lftp', ['-c', script]);
}

/** curl: one command per step (`-Q -RNFR/-RNTO` renames in the upload's session); `ftps://` is implicit. */
export function curl(j: ClientJob, mode: TlsMode): Promise<ClientRun> {
  const base = `${mode === 'implicit' ? 'ftps' : 'ftp'}://127.0.0.1:${j.port}/`;
  const common = ['-sS', '--ssl-reqd', '-k', '--user', `${j.user}:${j.password}`];
  const echo = (text: string): [string, string[]] => ['echo', [text]];
  return runAll([
    ['curl', [...common, '-T', j.good.local, base + j.good.remote]],
    ['curl', [...common, '-T', j.temp.local, base + j.temp.remote, '-Q', `-RNFR ${j.temp.remote}`, '-Q', `-RNTO ${j.temp.final}`]],
    ['curl', [...common, '-T', j.junk.local, base + j.junk.remote]],
    echo('== LIST'),
    ['curl', [...common, base]],
    echo('== NLST'),
    ['curl', [...common, '--list-only', base]],
    echo('== ERROR'),
    ['curl', [...common, `${base}${j.junk.remote}.error.txt`]],
  ]);
}

/** rclone's FTP backend (explicit_tls, or tls for implicit), configured through the environment; `moveto` renames. */
export async function rclone(j: ClientJob, mode: TlsMode): Promise<ClientRun> {
  const obscured = await new Promise<string>((resolve, reject) =>
    execFile('rclone', ['obscure', j.password], (err, out) => (err ? reject(err) : resolve(out.trim()))),
  );
  const env = {
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_II_TYPE: 'ftp',
    RCLONE_CONFIG_II_HOST: '127.0.0.1',
    RCLONE_CONFIG_II_PORT: String(j.port),
    RCLONE_CONFIG_II_USER: j.user,
    RCLONE_CONFIG_II_PASS: obscured,
    [mode === 'implicit' ? 'RCLONE_CONFIG_II_TLS' : 'RCLONE_CONFIG_II_EXPLICIT_TLS']: 'true',
    RCLONE_CONFIG_II_NO_CHECK_CERTIFICATE: 'true',
  };
  const echo = (text: string): [string, string[]] => ['echo', [text]];
  return runAll([
    ['rclone', ['copyto', j.good.local, `ii:${j.good.remote}`], env],
    // a session per command: the temporary upload waits for the rename of the next one
    ['rclone', ['copyto', j.temp.local, `ii:${j.temp.remote}`], env],
    ['rclone', ['moveto', `ii:${j.temp.remote}`, `ii:${j.temp.final}`], env],
    ['rclone', ['copyto', j.junk.local, `ii:${j.junk.remote}`], env],
    echo('== LIST'),
    ['rclone', ['lsl', 'ii:'], env],
    echo('== ERROR'),
    ['rclone', ['cat', `ii:${j.junk.remote}.error.txt`], env],
  ]);
}

/** The text of one `== NAME` section of a job's output. */
export function section(stdout: string, name: string): string {
  const start = stdout.indexOf(`== ${name}\n`);
  if (start < 0) return '';
  const rest = stdout.slice(start + name.length + 4);
  const end = rest.search(/^== [A-Z0-9_]+$/m);
  return end < 0 ? rest : rest.slice(0, end);
}
