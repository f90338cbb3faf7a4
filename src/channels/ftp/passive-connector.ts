// Passive-mode data connections (PASV/EPSV), in place of ftp-srv's PassiveConnector, which
// - polls every 50 ms for the data connection (up to 50 ms lost on every transfer),
// - builds a new TLS context, parsing the key again, for every data connection,
// - probes a port by listening and closing before listening again (two sessions can race for it).
// This one listens on the next free port of the range at once, is told of the connection by an
// event, and wraps it in TLS with the server's one context (so clients can resume the control
// connection's TLS session on it, as FileZilla insists).
//
// The data connection is handed to the transfer as soon as the TCP connection is accepted, with
// the TLS handshake still under way: curl and basic-ftp start that handshake at once, but Python's
// ftplib, lftp and PHP start it only after they have read the transfer's `150`, which the
// transfer sends once it has the socket. Waiting for the handshake before handing over would
// deadlock those clients; bytes written before it ends are sent once it has.
import net from 'node:net';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import { bluebird, type DataConnector } from './ftp-srv-internals.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';

import type { StallPhase } from '../transfer/transfer-metrics.ts';

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
  /** read when the client connects: set when data connections are protected (PROT P) */
  protection: () => SecureContext | undefined;
  /** the client must connect within this time after the transfer command (ftp-srv's 5 s) */
  acceptTimeoutMs?: number;
  /** ... and finish its TLS handshake within this time after connecting */
  handshakeTimeoutMs: number;
  /** nobody connects this long after PASV/EPSV: the port is given back */
  idleMs?: number;
  onIntruder?: (address: string) => void;
  onStall?: (phase: StallPhase, waitedMs: number) => void;
}

type DataSocket = Duplex & { connected?: boolean };

export class PassiveConnector implements DataConnector {
  readonly type = 'passive';
  dataServer: net.Server | null = null;
  dataSocket: DataSocket | null = null;
  private waiters: ((s: DataSocket) => void)[] = [];
  private idle?: NodeJS.Timeout;
  private handshake?: NodeJS.Timeout;
  /** a TLS handshake is under way on the data connection */
  handshaking = false;
  private handshakeStarted = 0;
  /** the transfer was refused: close once the client can take it (closeAfterHandshake) */
  private closing = false;
  private closeTimer?: NodeJS.Timeout;

  constructor(
    /** the control connection's address: the data connection must come from there */
    private readonly clientAddress: string,
    private readonly options: PassiveOptions,
  ) {}

  get socket(): DataSocket | null {
    return this.dataSocket;
  }

  /** listening for, or holding, a data connection (not yet used by a transfer) */
  get open(): boolean {
    return Boolean(this.dataServer || this.dataSocket);
  }

  /** Listens on the next free port of the range and returns it. */
  async listen(): Promise<number> {
    for (let attempt = 0; attempt < this.options.ports.size; attempt++) {
      const port = this.options.ports.take();
      // half-open: the data connection is ended by this side (closeGracefully), not by itself on
      // the client's close_notify
      const server = net.createServer({ allowHalfOpen: true }, (s) => this.accept(s));
      server.maxConnections = 1;
      const ok = await new Promise<boolean>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
        server.listen(port, this.options.host, () => resolve(true));
      });
      if (!ok) continue;
      server.on('error', () => {});
      this.dataServer = server;
      this.idle = setTimeout(() => this.end(), this.options.idleMs ?? 30_000);
      this.idle.unref();
      return port;
    }
    throw Object.assign(new Error('No passive port free, try again later'), { code: 425 });
  }

  private accept(socket: net.Socket) {
    socket.on('error', () => {});
    if (this.dataSocket || normalizeAddress(socket.remoteAddress) !== normalizeAddress(this.clientAddress)) {
      // someone else guessed the port: never hand them the transfer
      this.options.onIntruder?.(normalizeAddress(socket.remoteAddress));
      socket.destroy();
      return;
    }
    clearTimeout(this.idle);
    this.dataServer?.close();
    // a download's last small segment goes out at once (see the control connection in ftp-channel.ts)
    socket.setNoDelay(true);
    const secureContext = this.options.protection();
    if (!secureContext) {
      if (this.closing) return this.end(socket);
      // nothing is read before the transfer takes the socket (this runs before any data event)
      socket.pause();
      return this.ready(socket);
    }
    const secure = new TLSSocket(socket, { isServer: true, secureContext });
    secure.on('error', () => secure.destroy());
    this.handshaking = true;
    this.handshakeStarted = Date.now();
    this.handshake = setTimeout(() => this.handshakeStalled(), this.options.handshakeTimeoutMs);
    this.handshake.unref();
    secure.once('secure', () => {
      this.handshaking = false;
      clearTimeout(this.handshake);
    });
    secure.once('close', () => clearTimeout(this.handshake));
    this.ready(secure);
    if (this.closing) this.endWhenSecure(secure);
  }

  /**
   * For a refused transfer (its reply already sent): closes the data connection only once the
   * client can take that, so it reads the refusal on the control connection. curl and basic-ftp
   * connect and start their TLS handshake before the reply arrives; a connection dropped under
   * them is reported as a broken socket ("disconnected before secure TLS connection was
   * established"), and basic-ftp then closes the session without reading the 553. So: a handshake
   * under way is let finish (or the client closes), a client that connects within `graceMs` is
   * let shake hands too, and then the connection ends cleanly (close_notify, FIN).
   */
  closeAfterHandshake(graceMs = 5000): void {
    this.closing = true;
    clearTimeout(this.idle);
    // a refused transfer is no stall: its handshake timer reports nothing
    clearTimeout(this.handshake);
    clearTimeout(this.closeTimer);
    this.closeTimer = setTimeout(() => this.end(), graceMs);
    this.closeTimer.unref();
    if (this.dataSocket) this.endWhenSecure(this.dataSocket);
  }

  private endWhenSecure(socket: DataSocket) {
    if (!(socket instanceof TLSSocket) || !this.handshaking) return this.end();
    clearTimeout(this.handshake);
    const done = () => this.end();
    socket.once('secure', done);
    socket.once('close', done);
  }

  /** The TLS handshake took too long (the timer, or a transfer that saw no byte): reported once. */
  handshakeStalled(): void {
    if (!this.handshaking) return;
    this.handshaking = false;
    clearTimeout(this.handshake);
    this.options.onStall?.('tls_handshake', Date.now() - this.handshakeStarted);
    this.dataSocket?.destroy();
  }

  private ready(socket: DataSocket) {
    socket.connected = true;
    this.dataSocket = socket;
    for (const w of this.waiters.splice(0)) w(socket);
  }

  /** The data connection once the client has connected (bluebird; its TimeoutError is ftp-srv's 425). */
  waitForConnection(): PromiseLike<DataSocket> {
    if (this.dataSocket?.connected) return bluebird.resolve(this.dataSocket);
    if (!this.dataServer) return bluebird.reject(Object.assign(new Error('Passive server not setup'), { code: 425 }));
    const ms = this.options.acceptTimeoutMs ?? 5000;
    return bluebird
      .resolve(new Promise<DataSocket>((resolve) => this.waiters.push(resolve)))
      .timeout(ms)
      .then(undefined, (err: Error) => {
        if (err instanceof bluebird.TimeoutError) this.options.onStall?.('tcp_accept', ms);
        throw err;
      });
  }

  /** Closes the data connection (or `socket`, one accepted after a refusal) and the listener. */
  end(extra?: DataSocket): void {
    clearTimeout(this.idle);
    clearTimeout(this.handshake);
    clearTimeout(this.closeTimer);
    for (const socket of [this.dataSocket, extra]) if (socket && !socket.destroyed) closeGracefully(socket);
    this.dataSocket = null;
    this.dataServer?.close();
    this.dataServer = null;
    this.waiters.length = 0;
  }
}

/**
 * Ends a data connection (TLS: close_notify, then FIN) and lets it close by itself; destroyed only
 * if the client has not closed its side within LINGER_MS (the sockets are half-open).
 *
 * The end waits for the next turn of the event loop: a TLS socket ended in the same turn as its
 * 'end' event (the client's close_notify) loses its own close_notify at times, and so does one
 * that ends itself then (allowHalfOpen false): against a bare Node server, Python's ssl unwrap()
 * after 120 KB failed with "EOF occurred in violation of protocol" 5 and 13 times in 20; ended a
 * turn later, never. ftplib waits for that close_notify after every upload.
 */
function closeGracefully(socket: DataSocket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  setImmediate(() => socket.end());
}

const LINGER_MS = 5000;

/** PASV's h1,h2,h3,h4,p1,p2. */
export function pasvReply(address: string, port: number): string {
  return `${address.replace(/\./g, ',')},${(port / 256) | 0},${port % 256}`;
}
