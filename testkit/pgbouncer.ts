// Debian's PgBouncer (1.18: no prepared statements in transaction pooling) in front of a
// PostgreSQL server, with its own ini, folder and free port, run as the postgres user (it refuses
// root). Every database of the server is reachable through it by name.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { until } from './wait.ts';

export interface PgBouncer {
  port: number;
  /** the same database URL through the pooler */
  through(url: string): string;
  stop(): Promise<void>;
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

export async function startPgBouncer(server: { host: string; port: number }, mode: 'transaction' | 'session' = 'transaction'): Promise<PgBouncer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-pgbouncer-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.host} port=${server.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      "unix_socket_dir = ''",
      'auth_type = trust',
      `auth_file = ${dir}/userlist.txt`,
      `pool_mode = ${mode}`,
      'max_client_conn = 1000',
      'default_pool_size = 10',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${dir}/pgbouncer.log`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(dir, 0o777);
  const cmd = asRoot ? ['runuser', '-u', 'postgres', '--', 'pgbouncer', `${dir}/pgbouncer.ini`] : ['pgbouncer', `${dir}/pgbouncer.ini`];
  const proc: ChildProcess = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore' });
  const reap = () => proc.kill('SIGKILL'); // never outlive the test process
  process.once('exit', reap);
  try {
    await until(() => proc.exitCode === null && answers(port), 30_000, `pgbouncer on port ${port}`, 50);
  } catch (e) {
    // say why (its log: a port taken in between, a bad ini)
    const log = fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8').slice(-2000) : '';
    proc.kill('SIGKILL');
    throw new Error(`${(e as Error).message} (exit ${proc.exitCode}); log: ${log}`);
  }
  return {
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async stop() {
      process.removeListener('exit', reap);
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
