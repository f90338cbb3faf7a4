// The reference of bench:ftp: a minimal FTPS server on node:net/node:tls that keeps the service's
// promise and nothing else. A STOR's bytes are inserted into PostgreSQL and a BullMQ job added
// (lean-intake.ts) before its 226; the worker in this process checks and marks them. It speaks
// what an FTPS client needs to upload (AUTH TLS, USER/PASS, PBSZ, PROT, TYPE, EPSV/PASV, STOR,
// QUIT), with TCP_NODELAY, one TLS context (so data connections resume the control's session)
// and each session's data connection taken as it arrives. Any login is accepted. Prints its port.
//
//   node --import tsx bench/ftp-bare-server.ts <databaseUrl> <redisUrl> <prefix> <cert> <key>
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { startLeanIntake } from './lean-intake.ts';

const [databaseUrl, redisUrl, prefix, cert, key] = process.argv.slice(2);
const intake = await startLeanIntake({ databaseUrl, redisUrl, prefix });
const secureContext = tls.createSecureContext({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), minVersion: 'TLSv1.2' });
const FEATURES = ['211-Features:', ' AUTH TLS', ' PBSZ', ' PROT', ' EPSV', ' PASV', ' UTF8', '211 End'].join('\r\n');

/** One control connection: its lines in, its replies out, its passive data listener. */
class Session {
  private buffered = '';
  private data?: { server: net.Server; next: Promise<tls.TLSSocket> };
  private queue = Promise.resolve(); // commands run one after the other, as they came

  constructor(private socket: net.Socket) {
    this.reply(220, 'lean FTPS');
    this.listen(socket);
    socket.on('close', () => this.data?.server.close());
  }

  private listen(socket: net.Socket): void {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      for (let nl = this.buffered.indexOf('\r\n'); nl >= 0; nl = this.buffered.indexOf('\r\n')) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 2);
        this.queue = this.queue.then(() => this.command(line)).catch(() => void this.socket.destroy());
      }
    });
    socket.on('error', () => socket.destroy());
  }

  private reply(code: number, text: string): void {
    this.socket.write(`${code} ${text}\r\n`);
  }

  private async command(line: string): Promise<void> {
    const space = line.indexOf(' ');
    const verb = (space < 0 ? line : line.slice(0, space)).toUpperCase();
    const arg = space < 0 ? '' : line.slice(space + 1);
    switch (verb) {
      case 'AUTH': {
        this.socket.write('234 AUTH TLS ok\r\n');
        this.socket.removeAllListeners('data');
        const secure = new tls.TLSSocket(this.socket, { isServer: true, secureContext });
        this.socket = secure;
        this.listen(secure);
        return;
      }
      case 'USER':
        return this.reply(331, 'password please');
      case 'PASS':
        return this.reply(230, 'logged in');
      case 'FEAT':
        return void this.socket.write(`${FEATURES}\r\n`);
      case 'PBSZ':
      case 'PROT':
      case 'TYPE':
      case 'STRU':
      case 'OPTS':
        return this.reply(200, 'ok');
      case 'EPSV':
        return this.reply(229, `Entering Extended Passive Mode (|||${await this.passive()}|)`);
      case 'PASV': {
        const port = await this.passive();
        return this.reply(227, `Entering Passive Mode (127,0,0,1,${port >> 8},${port & 255})`);
      }
      case 'STOR':
        return this.store(arg);
      case 'QUIT':
        this.reply(221, 'bye');
        return void this.socket.end();
      default:
        return this.reply(502, 'not implemented');
    }
  }

  /** The session's data listener (kept for its next transfers), waiting for the next connection. */
  private async passive(): Promise<number> {
    if (!this.data) {
      const server = net.createServer({ noDelay: true });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      this.data = { server, next: this.accept(server) };
    }
    return (this.data.server.address() as net.AddressInfo).port;
  }

  /** TLS from the first byte (PROT P), started as the connection arrives. */
  private accept(server: net.Server): Promise<tls.TLSSocket> {
    return new Promise((resolve) => server.once('connection', (raw) => resolve(new tls.TLSSocket(raw, { isServer: true, secureContext }))));
  }

  private async store(name: string): Promise<void> {
    if (!this.data) return this.reply(425, 'EPSV or PASV first');
    const socket = await this.data.next;
    this.data.next = this.accept(this.data.server);
    this.reply(150, 'send');
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      socket
        .on('data', (c: Buffer) => chunks.push(c))
        .once('end', resolve)
        .once('error', reject);
    });
    socket.end();
    await intake.stage(name, Buffer.concat(chunks));
    this.reply(226, 'stored');
  }
}

const control = net.createServer({ noDelay: true }, (socket) => new Session(socket));
await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
console.log((control.address() as net.AddressInfo).port);
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void intake.close().finally(() => process.exit(0)));
