// The FTP channel reaches into ftp-srv's private state only through
// src/channels/ftp/ftp-srv-internals.ts. Every reach is exercised here against the installed
// ftp-srv in a real client session (a raw socket on loopback, TLS where the channel uses it), so
// an upgrade that moves one fails here by what it does, whatever its version number.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adoptConnection,
  bluebird,
  connectionCount,
  createFtpSrv,
  listeningSocket,
  onControlConnection,
  type ControlConnection,
  type DataConnector,
  type FtpSrvServer,
  type ParsedCommand,
} from '../../src/channels/ftp/ftp-srv-internals.ts';
import { pino } from 'pino';
import { makeSelfSignedCert } from '../../src/channels/ftp/self-signed-cert.ts';
import { freePort } from '../../testkit/ports.ts';

/** A control connection seen from the client: each send resolves with the next reply line. */
class Client {
  private lines: string[] = [];
  private waiting: ((line: string) => void)[] = [];
  private buffered = '';

  constructor(public socket: net.Socket | tls.TLSSocket) {
    this.read(socket);
  }

  read(socket: net.Socket | tls.TLSSocket): void {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.buffered += d.toString('latin1');
      for (let nl = this.buffered.indexOf('\r\n'); nl >= 0; nl = this.buffered.indexOf('\r\n')) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 2);
        const w = this.waiting.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
  }

  next(): Promise<string> {
    const line = this.lines.shift();
    return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => this.waiting.push(resolve));
  }

  send(command: string): Promise<string> {
    this.socket.write(`${command}\r\n`);
    return this.next();
  }

  closed(): Promise<void> {
    return new Promise((resolve) => (this.socket.destroyed ? resolve() : this.socket.once('close', () => resolve())));
  }
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ftp-srv-adapter-'));
let srv: FtpSrvServer;
let port: number;
const connections: ControlConnection[] = [];
/** what each test's connection does with the commands it takes over (the rest go to ftp-srv) */
let intercept: (c: ControlConnection, cmd: ParsedCommand, ftpSrv: (cmd: ParsedCommand) => Promise<unknown>) => unknown = (_c, cmd, ftpSrv) => ftpSrv(cmd);
let secureContext: tls.SecureContext;

async function connect(socket = net.connect({ port, host: '127.0.0.1' })): Promise<{ client: Client; control: ControlConnection }> {
  const before = connections.length;
  const client = new Client(socket);
  expect(await client.next()).toMatch(/^220/);
  return { client, control: connections[before] };
}

async function loggedIn(): Promise<{ client: Client; control: ControlConnection }> {
  const session = await connect();
  expect(await session.client.send('USER a')).toMatch(/^331/);
  expect(await session.client.send('PASS right')).toMatch(/^230/);
  return session;
}

beforeAll(async () => {
  port = await freePort();
  const sigterm = process.listenerCount('SIGTERM');
  srv = createFtpSrv({ url: `ftp://127.0.0.1:${port}`, pasv_url: '127.0.0.1', log: pino({ level: 'silent' }) as never });
  // ftp-srv would exit the process on SIGTERM: createFtpSrv takes its handler away
  expect(process.listenerCount('SIGTERM')).toBe(sigterm);
  srv.on('login', ({ password }, resolve, reject) => (password === 'right' ? resolve({ root }) : reject(new Error('wrong password'))));
  onControlConnection(srv, (c) => {
    connections.push(c);
    const ftpSrv = c.interceptCommands((cmd) => intercept(c, cmd, ftpSrv));
  });
  await srv.listen();
  secureContext = tls.createSecureContext(await makeSelfSignedCert({ commonName: 'localhost', days: 1 }));
});

afterAll(async () => {
  await srv.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the ftp-srv adapter against the installed ftp-srv', () => {
  it('sees every control connection, its socket, and the listening socket and connection table', async () => {
    expect((listeningSocket(srv).address() as net.AddressInfo).port).toBe(port);
    const { client, control } = await connect();
    expect(control.id).toEqual(expect.any(String));
    expect(control.socket.remotePort).toBe(client.socket.localPort);
    expect(connectionCount(srv)).toBe(1);
    expect(await client.send('QUIT')).toMatch(/^221/);
    await client.closed();
    await expect.poll(() => connectionCount(srv)).toBe(0);
  });

  it('takes commands over, parsed, and hands the rest to ftp-srv', async () => {
    const seen: ParsedCommand[] = [];
    intercept = (c, cmd, ftpSrv) => (seen.push(cmd), cmd.directive === 'SITE' ? c.reply(200, `mine ${cmd.arg}`) : ftpSrv(cmd));
    const { client } = await connect();
    expect(await client.send('SITE hello')).toBe('200 mine hello');
    expect(await client.send('NOOP')).toMatch(/^200/);
    expect(seen.map((c) => [c.directive, c.arg])).toEqual([
      ['SITE', 'hello'],
      ['NOOP', null],
    ]);
    client.socket.destroy();
  });

  it('reads the login state, and forgets a failed user so that the next USER is taken', async () => {
    intercept = (_c, cmd, ftpSrv) => ftpSrv(cmd);
    const { client, control } = await connect();
    expect(await client.send('USER a')).toMatch(/^331/);
    expect(await client.send('PASS wrong')).toMatch(/^530/);
    // ftp-srv keeps the failed name and refuses a second USER: the reason forgetFailedUser exists
    expect(await client.send('USER b')).toMatch(/^530 Username already set/);
    control.forgetFailedUser();
    expect(await client.send('USER b')).toMatch(/^331/);
    expect(control.authenticated).toBe(false);
    expect(await client.send('PASS right')).toMatch(/^230/);
    expect(control.authenticated).toBe(true);
    client.socket.destroy();
  });

  it('takes the REST offset ftp-srv recorded, once', async () => {
    const { client, control } = await loggedIn();
    expect(await client.send('REST 100')).toMatch(/^350/);
    expect(control.takeRestOffset()).toBe(100);
    expect(control.takeRestOffset()).toBe(0);
    client.socket.destroy();
  });

  it("puts a data connector in the place ftp-srv's LIST waits on, with ftp-srv's bluebird", async () => {
    const { client, control } = await loggedIn();
    let waited = 0;
    let ended = 0;
    const connector: DataConnector = {
      socket: null,
      waitForConnection: () => (waited++, bluebird.reject(new bluebird.TimeoutError())),
      end: () => void ended++,
    };
    control.connector = connector;
    expect(control.connector).toBe(connector);
    // ftp-srv tells its own TimeoutError apart (425) from any other failure (451)
    expect(await client.send('LIST')).toBe('425 No connection established');
    expect(waited).toBe(1);
    // after its reply, LIST ends the data connection through the connector
    await expect.poll(() => ended).toBe(1);
    control.dropDataConnection();
    expect(ended).toBe(2);
    client.socket.destroy();
  });

  it('upgrades the control connection to TLS in the turn of its 234, and marks it secure', async () => {
    intercept = (c, cmd, ftpSrv) => (cmd.directive === 'AUTH' ? c.upgradeToTls(secureContext) : ftpSrv(cmd));
    const { client, control } = await connect();
    expect(control.secure).toBe(false);
    expect(await client.send('AUTH TLS')).toBe('234 Honored');
    const secure = tls.connect({ socket: client.socket as net.Socket, rejectUnauthorized: false });
    await new Promise((resolve) => secure.once('secureConnect', resolve));
    client.read(secure);
    expect(await client.send('NOOP')).toMatch(/^200/);
    expect(control.secure).toBe(true);
    expect(control.socket).toBeInstanceOf(tls.TLSSocket);
    secure.destroy();
  });

  it('marks an implicit FTPS connection secure, and closes with a final reply', async () => {
    intercept = (_c, cmd, ftpSrv) => ftpSrv(cmd);
    const { client, control } = await connect();
    control.markSecure();
    expect(control.secure).toBe(true);
    await control.close(421, 'bye now');
    expect(await client.next()).toBe('421 bye now');
    await client.closed();
  });

  it("adopts a socket accepted elsewhere as one of ftp-srv's control connections", async () => {
    const other = net.createServer((socket) => adoptConnection(srv, socket));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { client, control } = await connect(net.connect({ port: (other.address() as net.AddressInfo).port, host: '127.0.0.1' }));
    expect(control.socket.localPort).toBe((other.address() as net.AddressInfo).port);
    expect(await client.send('NOOP')).toMatch(/^200/);
    client.socket.destroy();
    other.close();
  });

  it('is the only module of the channel that names ftp-srv internals', () => {
    const dir = path.resolve('src/channels/ftp');
    const offenders = fs
      .readdirSync(dir)
      .filter(
        (f) =>
          f !== 'ftp-srv-internals.ts' &&
          /commandSocket|restByteCount|commands\.handle|srv\.server\b|\.connections\b|createRequire|ftp-srv\/src|'connect'/.test(
            fs.readFileSync(path.join(dir, f), 'utf8'),
          ),
      );
    expect(offenders).toEqual([]);
  });
});
