// Debian's Postfix as a relay in front of the SMTP receiver, as operators run it: a private
// instance (its own config directory and queue, loopback only, `postfix -c DIR start-fg` as our
// child process) whose relayhost is the receiver, retrying every second. Its queue
// (`postqueue -c DIR -p`) is the judge of what the receiver acknowledged.
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../testkit/ports.ts';
import { until } from '../../testkit/wait.ts';

export interface PostfixRelay {
  /** where Postfix's smtpd takes mail */
  port: number;
  /** its log so far */
  log(): string;
  /** `postqueue -p`'s text */
  queue(): Promise<string>;
  /** `postqueue -f`: retry the deferred mail now */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

const run = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(cmd, args, (err, stdout, stderr) => (err ? reject(new Error(`${cmd}: ${stderr || err.message}`)) : resolve(stdout))),
  );

export async function startPostfixRelay(relayPort: number): Promise<PostfixRelay> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-postfix-'));
  fs.chmodSync(dir, 0o755);
  fs.mkdirSync(path.join(dir, 'queue'));
  fs.mkdirSync(path.join(dir, 'data'));
  const uid = Number(execFileSync('id', ['-u', 'postfix'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postfix'], { encoding: 'utf8' }));
  fs.chownSync(path.join(dir, 'data'), uid, gid);
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${dir}/queue`,
      `data_directory = ${dir}/data`,
      'mail_owner = postfix',
      'setgid_group = postdrop',
      'myhostname = relay.test',
      'mydestination =',
      'inet_interfaces = loopback-only',
      'inet_protocols = ipv4',
      'mynetworks = 127.0.0.0/8',
      'smtpd_relay_restrictions = permit_mynetworks, reject',
      `relayhost = [127.0.0.1]:${relayPort}`,
      // a file: /dev/stdout cannot be opened when it is a socket (as Node's pipes are)
      `maillog_file = ${dir}/maillog`,
      `maillog_file_prefixes = ${dir}`,
      'minimal_backoff_time = 1s',
      'maximal_backoff_time = 2s',
      'queue_run_delay = 1s',
      'smtp_tls_security_level = may',
      'alias_maps =',
      'local_recipient_maps =',
      'message_size_limit = 104857600',
      '',
    ].join('\n'),
  );
  // the Debian master.cf, unchrooted, with smtpd on our port only
  const master = fs
    .readFileSync('/etc/postfix/master.cf', 'utf8')
    .split('\n')
    .map((line) =>
      /^smtp\s+inet\s/.test(line)
        ? `127.0.0.1:${port} inet n - n - - smtpd`
        : line.replace(/^(\S+\s+(?:unix|inet|fifo|unix-dgram|pass)\s+\S+\s+\S+\s+)y(\s)/, '$1n$2'),
    )
    .join('\n');
  fs.writeFileSync(path.join(dir, 'master.cf'), master);
  const proc = spawn('postfix', ['-c', dir, 'start-fg'], { stdio: 'ignore' });
  const log = () => (fs.existsSync(path.join(dir, 'maillog')) ? fs.readFileSync(path.join(dir, 'maillog'), 'utf8') : '');
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await until(
    async () => {
      if (proc.exitCode !== null) throw new Error(`postfix exited: ${log()}`);
      return new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
    },
    30_000,
    'postfix to listen',
  );
  return {
    port,
    log,
    queue: () => run('postqueue', ['-c', dir, '-p']),
    flush: async () => void (await run('postqueue', ['-c', dir, '-f'])),
    async stop() {
      await run('postfix', ['-c', dir, 'stop']).catch(() => proc.kill('SIGTERM'));
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
