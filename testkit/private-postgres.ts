// A PostgreSQL cluster of its own (initdb + pg_ctl as the postgres user, in a temp folder, on a
// free port), which a test may restart or stop without touching the machine's shared server.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? `/usr/lib/postgresql/${process.env.PG_MAJOR ?? '15'}/bin`;

export interface PrivatePostgres {
  port: number;
  /** the URL of its `postgres` database (trust auth) */
  url: string;
  /** the postmaster's process id (its backends are its children) */
  pid(): number;
  /** a URL of the same server for another database */
  urlOf(db: string): string;
  /** `pg_ctl restart -m fast`: every connection is cut (57P01), the server answers again after */
  restart(): Promise<void>;
  /** stops it (immediate) and removes its folder */
  destroy(): Promise<void>;
}

/** Runs a command as the postgres user (root may not run the server). */
function asPostgres(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const asRoot = process.getuid?.() === 0;
  return run(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, { timeout: 120_000 });
}

/** `durable`: fsync on and the shared server's buffers, for benchmarks whose figures must compare with it. */
export async function startPrivatePostgres({ durable = false }: { durable?: boolean } = {}): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-pg-'));
  fs.chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  await asPostgres(`${BIN}/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  fs.appendFileSync(
    path.join(data, 'postgresql.conf'),
    `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${dir}'\nfsync = ${durable ? 'on' : 'off'}\nmax_connections = 200\nshared_buffers = ${durable ? '128MB' : '32MB'}\n`,
  );
  const ctl = (...args: string[]) => asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', ...args]);
  await ctl('start');
  // never outlive the test process
  const reap = () => {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', `${BIN}/pg_ctl`, '-D', data, 'stop', '-m', 'immediate'], { stdio: 'ignore' });
    } catch {}
  };
  process.once('exit', reap);
  const urlOf = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    port,
    url: urlOf('postgres'),
    urlOf,
    pid: () => Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    restart: async () => void (await ctl('restart', '-m', 'fast')),
    async destroy() {
      process.removeListener('exit', reap);
      await ctl('stop', '-m', 'immediate').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
