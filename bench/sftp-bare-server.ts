// The SFTP benchmark's reference: an SSH server (ssh2) that runs OpenSSH's own sftp-server for
// each session, as sshd does, writing the uploads to disk under <dir>. Any login is accepted.
// Prints its port on stdout.
import { spawn } from 'node:child_process';
import ssh2 from 'ssh2';

const [dir] = process.argv.slice(2);
const hostKey = ssh2.utils.generateKeyPairSync('ed25519').private;
const server = new ssh2.Server({ hostKeys: [hostKey] }, (client) => {
  client.on('authentication', (ctx) => ctx.accept());
  client.on('error', () => {});
  client.on('ready', () => {
    client.on('session', (accept) => {
      const session = accept();
      session.on('subsystem', (acceptSubsystem, reject, info) => {
        if (info.name !== 'sftp') return reject();
        const channel = acceptSubsystem();
        const child = spawn('/usr/lib/openssh/sftp-server', ['-d', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
        channel.pipe(child.stdin);
        child.stdout.pipe(channel);
        child.on('exit', (code) => {
          channel.exit(code ?? 0);
          channel.end();
        });
      });
    });
  });
});
server.listen(0, '127.0.0.1', () => console.log((server.address() as { port: number }).port));
