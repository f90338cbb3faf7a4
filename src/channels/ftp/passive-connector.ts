// Passive-mode data connections (PASV/EPSV), in place of ftp-srv's PassiveConnector, which
// - polls every 50 ms for the data connection (up to 50 ms lost on every transfer),
// - builds a new TLS context, parsing the key again, for every data connection,
// - probes a port by listening and closing before listening again (two sessions can race for it).
// This one listens on the next free port of the range at once, is told of the connection by an
// event, and wraps it in TLS with the server's one context (so clients can also resume the control
// connection's TLS session). It keeps ftp-srv's connector interface, which its LIST/RETR use.
import { createRequire } from 'node:module';
import net from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import { normalizeAddress } from './lockout-policy.ts';

// ftp-srv's LIST/RETR chain bluebird methods (.tap, TimeoutError) on waitForConnection(): use its bluebird.
const fromFtpSrv = createRequire(createRequire(import.meta.url).resolve('ftp-srv'));
const Bluebird = fromFtpSrv('bluebird') as { resolve<T>(p: PromiseLike<T> | T): PromiseLike<T> & { timeout(ms: number, message?: string): PromiseLike<T> }; reject(e: Error): PromiseLike<never> };

/** Hands out the passive ports of a range in turn, shared by all sessions of a server. */
export class PortRange {
  private next: number;
  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    this.next = min + Math.floor(Math.random() * (max - min + 1));
  }

  get size(): number {
    return this.max - this.min + 1;
  }

  take(): number {
    const port = this.next;
    this.next = port >= this.max ? this.min : port + 1;
    return port;
  }
}

export interface PassiveOptions {
  host: string;
  ports: PortRange;
  /** set when the control connection is secure: data connections are TLS too */
  secureContext?: SecureContext;
  /** the client must connect within this time after PASV/EPSV, or the port is given back */
  idleMs?: number;
  onIntruder?: (address: string) => void;
}

type DataSocket = Duplex & { connected?: boolean };

export class PassiveConnector {
  readonly type = 'passive';
  dataServer: net.Server | null = null;
  dataSocket: DataSocket | null = null;
  private waiters: ((s: DataSocket) => void)[] = [];
  private idle?: NodeJS.Timeout;

  constructor(
    /** the control connection's address: the data connection must come from there */
    private readonly clientAddress: string,
    private readonly o: PassiveOptions,
  ) {}

  get socket(): DataSocket | null {
    return this.dataSocket;
  }

  /** Listens on the next free port of the range and returns it. */
  async listen(): Promise<number> {
    for (let attempt = 0; attempt < this.o.ports.size; attempt++) {
      const port = this.o.ports.take();
      const server = net.createServer({ pauseOnConnect: !this.o.secureContext }, (s) => this.accept(s));
      server.maxConnections = 1;
      const ok = await new Promise<boolean>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
        server.listen(port, this.o.host, () => resolve(true));
      });
      if (!ok) continue;
      server.on('error', () => {});
      this.dataServer = server;
      this.idle = setTimeout(() => this.end(), this.o.idleMs ?? 30_000);
      this.idle.unref();
      return port;
    }
    throw Object.assign(new Error('No passive port free, try again later'), { code: 425 });
  }

  private accept(socket: net.Socket) {
    socket.on('error', () => {});
    if (this.dataSocket || normalizeAddress(socket.remoteAddress) !== normalizeAddress(this.clientAddress)) {
      // someone else guessed the port: never hand them the transfer
      this.o.onIntruder?.(normalizeAddress(socket.remoteAddress));
      socket.destroy();
      return;
    }
    clearTimeout(this.idle);
    this.dataServer?.close();
    // a download's last small segment goes out at once (see the control connection in ftp-channel.ts)
    socket.setNoDelay(true);
    if (!this.o.secureContext) return this.ready(socket);
    const secure = new TLSSocket(socket, { isServer: true, secureContext: this.o.secureContext });
    secure.on('error', () => secure.destroy());
    secure.once('secure', () => this.ready(secure));
  }

  private ready(socket: DataSocket) {
    socket.connected = true;
    this.dataSocket = socket;
    for (const w of this.waiters.splice(0)) w(socket);
  }

  /** The data connection once the client has made it (bluebird, 5 s like ftp-srv's, then TimeoutError: 425). */
  waitForConnection({ timeout = 5000 }: { timeout?: number } = {}): PromiseLike<DataSocket> {
    if (this.dataSocket?.connected) return Bluebird.resolve(this.dataSocket);
    if (!this.dataServer) return Bluebird.reject(Object.assign(new Error('Passive server not setup'), { code: 425 }));
    return Bluebird.resolve(new Promise<DataSocket>((resolve) => this.waiters.push(resolve))).timeout(timeout);
  }

  end(): void {
    clearTimeout(this.idle);
    const socket = this.dataSocket;
    if (socket) socket.end(() => socket.destroy());
    this.dataSocket = null;
    this.dataServer?.close();
    this.dataServer = null;
    this.waiters.length = 0;
  }
}

/** PASV's h1,h2,h3,h4,p1,p2. */
export function pasvReply(address: string, port: number): string {
  return `${address.replace(/\./g, ',')},${(port / 256) | 0},${port % 256}`;
}
