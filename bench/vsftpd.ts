// The reference FTP server of bench:ftp: Debian's vsftpd on a private port and folder, writing
// FTPS uploads to disk. It runs as root in the foreground with its own config (anonymous
// uploads into <root>/upload, chrooted, as the `ftp` user the package creates). Installs the
// package when it is missing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { until } from '../testkit/wait.ts';
import { cpuMs } from './bench-kit.ts';

const BIN = '/usr/sbin/vsftpd';

export interface Vsftpd {
  port: number;
  /** where uploads land */
  dir: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export async function startVsftpd(o: { folder: string; port: number; cert: string; key: string; pasv: [number, number] }): Promise<Vsftpd> {
  if (!fs.existsSync(BIN)) {
    console.log('vsftpd is missing: apt-get install -y vsftpd');
    execFileSync('sh', ['-c', 'apt-get install -y vsftpd >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y vsftpd >/dev/null)'], {
      stdio: 'inherit',
    });
  }
  const root = path.join(o.folder, 'root');
  const dir = path.join(root, 'upload');
  const empty = path.join(o.folder, 'empty');
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(empty);
  // vsftpd refuses a writable chroot: the root stays root's, the upload folder is the ftp user's
  fs.chmodSync(o.folder, 0o755);
  fs.chmodSync(root, 0o755);
  execFileSync('chown', ['ftp:', dir]);
  const conf = path.join(o.folder, 'vsftpd.conf');
  fs.writeFileSync(
    conf,
    Object.entries({
      listen: 'YES',
      listen_ipv6: 'NO',
      listen_address: '127.0.0.1',
      listen_port: o.port,
      background: 'NO',
      seccomp_sandbox: 'NO',
      anonymous_enable: 'YES',
      no_anon_password: 'YES',
      anon_root: root,
      ftp_username: 'ftp',
      local_enable: 'NO',
      write_enable: 'YES',
      anon_upload_enable: 'YES',
      anon_other_write_enable: 'YES',
      anon_umask: '022',
      pasv_enable: 'YES',
      pasv_address: '127.0.0.1',
      pasv_min_port: o.pasv[0],
      pasv_max_port: o.pasv[1],
      connect_from_port_20: 'NO',
      ssl_enable: 'YES',
      allow_anon_ssl: 'YES',
      force_anon_logins_ssl: 'YES',
      force_anon_data_ssl: 'YES',
      require_ssl_reuse: 'NO',
      ssl_tlsv1: 'YES',
      ssl_sslv2: 'NO',
      ssl_sslv3: 'NO',
      ssl_ciphers: 'HIGH',
      rsa_cert_file: o.cert,
      rsa_private_key_file: o.key,
      secure_chroot_dir: empty,
      xferlog_enable: 'NO',
      dirmessage_enable: 'NO',
      max_clients: 200,
      max_per_ip: 200,
    })
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const proc = spawn(BIN, [conf], { stdio: ['ignore', 'ignore', 'inherit'] });
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const s = net.connect({ port: o.port, host: '127.0.0.1' }, () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
  await until(listening, 10_000, `vsftpd on port ${o.port}`, 50);
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    await exited;
  };
  return { port: o.port, dir, proc, stop };
}

/** CPU time (ms) of a process and all its descendants alive now (vsftpd forks per session). */
export function treeCpuMs(pid: number): number {
  let children: number[] = [];
  try {
    children = fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return 0;
  }
  return cpuMs([pid]) + children.reduce((sum, c) => sum + treeCpuMs(c), 0);
}
