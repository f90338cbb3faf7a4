// The one place where this channel reaches into ftp-srv's private state, which its type
// declarations leave out: the command dispatcher (to take commands over), the control socket
// (to wrap it in TLS), the data connector, the login state, the server's socket, connection
// table and undocumented `connect` event, and its bluebird. test/unit/ftp-srv-adapter.test.ts
// exercises each of them against the installed ftp-srv in a client session, so an upgrade that
// moves one fails there, whatever version the lock file brings.
import { createRequire } from 'node:module';
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import { FtpSrv, type FtpConnection, type FtpServerOptions } from 'ftp-srv';

export interface ParsedCommand {
  directive: string;
  arg: string | null;
  flags: string[];
  raw: string;
}

/** What ftp-srv's LIST/NLST/RETR use of `connection.connector`. */
export interface DataConnector {
  /** resolves with the data socket once the client has connected (bluebird: LIST/RETR chain .tap) */
  waitForConnection(): PromiseLike<Duplex>;
  socket: Duplex | null;
  end(): void;
}

interface Internals extends Omit<FtpConnection, 'restByteCount'> {
  commandSocket: Socket;
  connector: DataConnector;
  commands: { handle(message: string | ParsedCommand): unknown; parse(message: string): ParsedCommand };
  authenticated?: boolean;
  username?: string;
  restByteCount?: number;
}

interface ServerInternals {
  server: Server;
  connections: Record<string, unknown>;
}

/** require() as ftp-srv's own modules resolve: its bluebird, not one of ours */
const fromFtpSrv = createRequire(createRequire(import.meta.url).resolve('ftp-srv'));

type BluebirdLike<T> = PromiseLike<T> & { timeout(ms: number): PromiseLike<T> };
/** ftp-srv's bluebird: its LIST/RETR chain `.tap` and catch `TimeoutError` on what the connector returns. */
export const bluebird = fromFtpSrv('bluebird') as {
  resolve<T>(p: PromiseLike<T> | T): BluebirdLike<T>;
  reject(e: Error): PromiseLike<never>;
  TimeoutError: new (...args: never[]) => Error;
};

/** One control connection, seen through what ftp-srv keeps on it. */
export class ControlConnection {
  private readonly c: Internals;

  /** ftp-srv's connection, as its public declarations show it (a FileSystem takes it) */
  constructor(readonly ftpConnection: FtpConnection) {
    this.c = ftpConnection as unknown as Internals;
  }

  get id(): string {
    return this.c.id;
  }

  get socket(): Socket {
    return this.c.commandSocket;
  }

  get secure(): boolean {
    return this.c.secure;
  }

  /** implicit FTPS: the connection was TLS from its first byte */
  markSecure(): void {
    this.c.secure = true;
  }

  get authenticated(): boolean {
    return Boolean(this.c.authenticated);
  }

  /** ftp-srv keeps the name of a failed attempt and would refuse the next USER */
  forgetFailedUser(): void {
    if (!this.c.authenticated) delete this.c.username;
  }

  /** the REST offset a STOR would resume at (cleared: STOR refuses resuming) */
  takeRestOffset(): number {
    const offset = this.c.restByteCount ?? 0;
    this.c.restByteCount = 0;
    return offset;
  }

  get connector(): DataConnector {
    return this.c.connector;
  }

  set connector(connector: DataConnector) {
    this.c.connector = connector;
  }

  /** Ends the data connection (ftp-srv's connector puts a fresh one in its place). */
  dropDataConnection(): void {
    try {
      this.c.connector.end();
    } catch {
      // no data connection was set up
    }
  }

  /** Sends a reply; a client that has gone away is not an error. */
  reply(code: number, message: string): Promise<unknown> {
    return Promise.resolve(this.c.reply(code, message)).catch(() => undefined);
  }

  /** A final reply, then the connection closes. */
  close(code: number, message: string): Promise<unknown> {
    // ftp-srv's declaration types the message as a number; it is sent as text
    return Promise.resolve(this.c.close(code, message as never)).catch(() => undefined);
  }

  /** Puts `handle` in front of ftp-srv's dispatcher; returns ftp-srv's own, to delegate to. */
  interceptCommands(handle: (cmd: ParsedCommand) => unknown): (cmd: ParsedCommand) => Promise<unknown> {
    const commands = this.c.commands;
    const original = commands.handle.bind(commands);
    commands.handle = (message) => handle(typeof message === 'string' ? commands.parse(message) : message);
    return (cmd) => Promise.resolve(original(cmd));
  }

  /**
   * AUTH TLS as ftp-srv's auth.js does it, but in the same turn as the 234: ftp-srv wraps the
   * socket a few event-loop turns later (bluebird schedules with setImmediate), so a fast client's
   * TLS hello could be read as a command.
   */
  upgradeToTls(secureContext: SecureContext): void {
    const raw = this.c.commandSocket;
    raw.write('234 Honored\r\n');
    const secure = new TLSSocket(raw, { isServer: true, secureContext });
    // ftp-srv's listeners (commands, close, timeout) sit on the raw socket
    for (const event of ['data', 'timeout', 'end', 'close', 'drain', 'error']) {
      secure.on(event, (...args: unknown[]) => raw.emit(event, ...args));
    }
    this.c.commandSocket = secure;
    this.c.secure = true;
  }
}

export type FtpSrvServer = FtpSrv;

/** An ftp-srv server that leaves the process's signals alone (it would exit on SIGTERM). */
export function createFtpSrv(options: FtpServerOptions): FtpSrv {
  const signals = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
  const before = new Map(signals.map((s) => [s, process.listeners(s)]));
  const srv = new FtpSrv(options);
  for (const [signal, kept] of before) {
    for (const fn of process.listeners(signal)) if (!kept.includes(fn)) process.off(signal, fn);
  }
  return srv;
}

/** ftp-srv's `connect` event (index.js emits it; its README and declarations leave it out): every new control connection. */
export function onControlConnection(srv: FtpSrv, handle: (connection: ControlConnection) => void): void {
  (srv as unknown as NodeJS.EventEmitter).on('connect', (e: { connection: FtpConnection }) => handle(new ControlConnection(e.connection)));
}

/** The control port's listening socket. */
export function listeningSocket(srv: FtpSrv): Server {
  return (srv as unknown as ServerInternals).server;
}

export function connectionCount(srv: FtpSrv): number {
  return Object.keys((srv as unknown as ServerInternals).connections).length;
}

/**
 * Hands an accepted socket (the implicit FTPS port's, TLS already) to ftp-srv's connection handler,
 * the listener its net.Server calls for the control port's own connections.
 */
export function adoptConnection(srv: FtpSrv, socket: Socket): void {
  listeningSocket(srv).emit('connection', socket);
}

/** A final reply written before ftp-srv's own 530, which then finds the socket closed. */
export function refuseAndClose(connection: ControlConnection, code: number, message: string) {
  try {
    connection.socket.end(`${code} ${message}\r\n`);
  } catch {
    // already gone
  }
}

/** The port a server bound (port 0 asked for one). */
export function boundPort(address: ReturnType<Socket['address']> | string | null, fallback: number): number {
  return typeof address === 'object' && address && 'port' in address ? address.port : fallback;
}
