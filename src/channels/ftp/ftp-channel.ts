// The embedded FTP/FTPS server: ftp-srv with the intake virtual file system, the login rules
// (TLS first, lockout, per-account limit), connection limits (per address before login, in total),
// the idle timeout, and implicit FTPS on a port of its own.
import { randomBytes } from 'node:crypto';
import type { Server, Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { FtpSrv } from 'ftp-srv';
import type { Logger } from '../../platform/logger.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/document-facts.ts';
import { plainFtpRefusal } from '../../domain/plain-ftp.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import { installCommands, TLS_REQUIRED_TEXT } from './ftp-commands.ts';
import { lsLine } from '../transfer/directory-listing.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import { FtpSession } from './ftp-session.ts';
import {
  adoptConnection,
  boundPort,
  connectionCount,
  ControlConnection,
  createFtpSrv,
  listeningSocket,
  onControlConnection,
  refuseAndClose,
} from './ftp-srv-internals.ts';
import { listenImplicitFtps } from './implicit-ftps-listener.ts';
import { IntakeFileSystem, type EntryStat } from './intake-file-system.ts';
import { HeldUploads, type HeldContent } from '../transfer/held-uploads.ts';
import { ListenerState, type TransferServerOptions } from '../transfer/listener-state.ts';
import { PortRange } from './passive-connector.ts';
import type { LoginLockout } from '../transfer/login-lockout.ts';
import { TransferLogins, type LoginVerdict } from '../transfer/transfer-login.ts';
import type { PreLoginGate, PreLoginTicket } from '../transfer/pre-login-gate.ts';

export interface FtpChannelOptions extends TransferServerOptions {
  /** the address PASV announces (an IP); local clients get their own address */
  pasvAddress: string;
  pasvRange: [number, number];
  tls?: { cert: Buffer; key: Buffer };
  requireTls: boolean;
  /** implicit FTPS (TLS from the first byte) on this port too; needs `tls` */
  implicitPort?: number;
  transferTimeoutMs: number;
  truncationGraceMs?: number;
  /** ftp-srv's own log lines (debug only: it logs every refused command as an error) */
  libraryLogLevel?: string;
}

export interface FtpChannelDeps {
  accounts: {
    /** the account's FTP user with an API key or an upload key (checked against `address`) */
    authenticateFtp(username: string, password: string, address: string | null): Promise<KeyScope | undefined>;
    authenticate(key: string): Promise<KeyScope | undefined>;
  };
  receiver: IntakeReceiver;
  lockout: LoginLockout;
  gate: PreLoginGate;
  metrics: TransferMetrics;
  log: Logger;
}

export class FtpChannel {
  private srv?: FtpSrv;
  private implicit?: Server;
  /** implicit FTPS connections (TLS sockets) and the admission their TCP connection got */
  private readonly implicitSockets = new WeakMap<Socket, PreLoginTicket>();
  private readonly implicitTickets = new WeakMap<Socket, PreLoginTicket>();
  private readonly sessions = new Map<string, FtpSession>();
  private readonly logins: TransferLogins<string>;
  private secureContext?: SecureContext;
  private ports: PortRange;
  private readonly held: HeldUploads<HeldContent>;
  private readonly state = new ListenerState();
  port = 0;
  /** the implicit FTPS port, when it runs */
  implicitPort?: number;

  constructor(
    private readonly options: FtpChannelOptions,
    private readonly deps: FtpChannelDeps,
  ) {
    this.ports = new PortRange(options.pasvRange[0], options.pasvRange[1]);
    this.held = HeldUploads.forServer('ftp', options, deps.log);
    this.logins = new TransferLogins('ftp', options.maxConnectionsPerAccount, deps);
  }

  get url(): string {
    return `ftp://${this.options.host}:${this.port}`;
  }

  /** Whether the server is accepting connections (readiness). */
  get ready(): boolean {
    return this.state.ready;
  }

  async start(): Promise<void> {
    const { options, deps } = this;
    const greeting = ['invoice-intake FTP: upload <invoice_number>.pdf or <invoice_id>.pdf'];
    if (options.requireTls) greeting.push('FTPS required: send AUTH TLS before logging in');
    // TLS 1.2 at least, on the control connection (AUTH TLS) and on data connections
    const tls = options.tls ? { cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' as const } : undefined;
    this.secureContext = tls && createSecureContext(tls);
    const srv = createFtpSrv({
      url: `ftp://${options.host}:${options.port}`,
      pasv_url: options.pasvAddress,
      pasv_min: options.pasvRange[0],
      pasv_max: options.pasvRange[1],
      greeting,
      anonymous: false,
      tls: (tls ?? false) as never,
      // timeouts are ours (ftp-srv's socket timeout would also fire on the control connection during long uploads)
      timeout: 0,
      log: deps.log.child({ part: 'ftp-srv' }, { level: options.libraryLogLevel ?? 'silent' }),
      file_format: ((stat: EntryStat) => lsLine(stat, stat.group)) as never,
    });
    this.srv = srv;
    onControlConnection(srv, (connection) => this.onConnect(connection));
    srv.on('disconnect', (e) => this.onDisconnect(e.id));
    srv.on('login', (data, resolve, reject) => {
      this.onLogin(new ControlConnection(data.connection), data.username, data.password).then(resolve, reject);
    });
    srv.on('client-error', ({ context, error }) => deps.log.debug({ context, err: error.message }, 'ftp client error'));
    srv.on('server-error' as never, ((e: { error: Error }) => deps.log.error({ err: e.error }, 'ftp server error')) as never);
    await srv.listen();
    this.port = boundPort(listeningSocket(srv).address(), options.port);
    if (options.implicitPort !== undefined && this.secureContext) {
      const admit = (raw: Socket) => {
        const admission = deps.gate.admit(raw.remoteAddress, () => raw.destroy());
        if (!admission.ok) return false;
        raw.once('close', () => admission.ticket.closed());
        this.implicitTickets.set(raw, admission.ticket);
        return true;
      };
      this.implicit = await listenImplicitFtps(
        { host: options.host, port: options.implicitPort, secureContext: this.secureContext, log: deps.log, admit },
        (socket, raw) => {
          this.implicitSockets.set(socket, this.implicitTickets.get(raw)!);
          adoptConnection(srv, socket);
        },
      );
      this.implicitPort = boundPort(this.implicit.address(), options.implicitPort);
    }
    this.state.listening = true;
  }

  /** Stops accepting, lets running uploads finish within graceMs, then closes every connection. */
  async stop(graceMs = 0): Promise<void> {
    const srv = this.srv;
    if (!srv || !this.state.beginDrain()) return;
    listeningSocket(srv).close();
    this.implicit?.close();
    await this.state.uploadsSettled(() => [...this.sessions.values()].some((s) => s.transfer), graceMs);
    await srv.close();
    this.held.clear();
    this.state.listening = false;
  }

  private onConnect(connection: ControlConnection) {
    const { options, deps } = this;
    const session = new FtpSession(connection, randomBytes(6).toString('hex'), options.idleTimeoutMs, (s) => {
      deps.log.info({ session: s.id, address: s.address }, 'ftp session idle: closing');
      void s.connection.close(421, 'Idle timeout: closing control connection');
    });
    this.sessions.set(connection.id, session);
    deps.metrics.connectionOpened();
    const raw = connection.socket;
    let ticket = this.implicitSockets.get(raw);
    if (ticket) {
      connection.markSecure();
      // implicit FTPS protects data connections without PBSZ/PROT (clients may still send them)
      session.protectData = true;
    } else {
      const admission = deps.gate.admit(raw.remoteAddress, () => undefined);
      if (!admission.ok) {
        // before ftp-srv's greeting, which then finds the socket closed; destroyed, so that a client
        // that never closes its side holds no place in the connection count
        raw.end('421 Too many connections from your address, try again later\r\n', () => raw.destroy());
        return;
      }
      ticket = admission.ticket;
      raw.once('close', () => ticket!.closed());
    }
    const seconds = Math.ceil(deps.gate.limits.handshakeTimeoutMs / 1000);
    ticket.onTimeout = () => {
      void connection.close(421, `Login timeout: log in within ${seconds} s of connecting`);
      // a TLS handshake that stalled never flushes that reply
      setTimeout(() => [raw, connection.socket].forEach((s) => s.destroy()), 1000).unref();
    };
    session.preLogin = ticket;
    // Replies are small writes the client must see at once: with Nagle on, a 226 that follows the
    // 150 waits for the client's delayed ACK of the 150 (40 ms per upload, a sequential client's
    // throughput halved). The TLS socket of AUTH TLS writes through this one.
    raw.setNoDelay(true);
    // 'end'/'close' of the TLS control socket are re-emitted on the raw one (ftp-srv's AUTH TLS)
    raw.once('end', () => session.markClosed());
    raw.once('close', () => session.markClosed());
    if (this.state.draining || connectionCount(this.srv!) > options.maxConnections) {
      deps.metrics.inc('connectionsRefused');
      deps.log.warn({ address: session.address, draining: this.state.draining }, 'ftp connection refused: too many connections');
      // written before ftp-srv's greeting, which then finds the socket closed
      raw.end('421 Too many connections, try again later\r\n', () => raw.destroy());
      return;
    }
    deps.metrics.inc('connectionsAccepted');
    installCommands(session, {
      secureContext: this.secureContext,
      requireTls: options.requireTls,
      maxUploadBytes: options.maxUploadBytes ?? MAX_DOCUMENT_BYTES,
      maxArchiveBytes: options.maxArchiveBytes ?? options.maxUploadBytes ?? MAX_DOCUMENT_BYTES,
      transferTimeoutMs: options.transferTimeoutMs,
      truncationGraceMs: options.truncationGraceMs ?? 250,
      metrics: deps.metrics,
      log: deps.log,
      passive: { host: options.host, ports: this.ports, address: options.pasvAddress },
      keyStillValid: async (s) => {
        const now = s.key ? await deps.accounts.authenticate(s.key) : undefined;
        return Boolean(now && s.scope && now.accountId === s.scope.accountId && now.mode === s.scope.mode);
      },
    });
    session.idle.arm();
  }

  private onDisconnect(id: string) {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.deps.metrics.connectionClosed();
    session.markClosed();
    this.logins.release(session.scope?.accountId, id);
  }

  /** ftp-srv's login event: TLS first, then the policy FTP and SFTP share (transfer-login.ts). Rejections become 530. */
  private async onLogin(connection: ControlConnection, username: string, password: string) {
    const { options, deps } = this;
    const session = this.sessions.get(connection.id);
    if (!session) throw new Error('Session closed');
    if (options.requireTls && !connection.secure) throw new Error(TLS_REQUIRED_TEXT);
    const address = session.address;
    const at = { session: session.id, address, username };
    let verdict: LoginVerdict<KeyScope>;
    try {
      verdict = await this.logins.attempt(at, () => deps.accounts.authenticateFtp(username, password, address));
    } catch (err) {
      deps.log.error({ err, session: session.id }, 'ftp login could not be checked');
      refuseAndClose(connection, 421, 'Login temporarily unavailable, try again later');
      throw new Error('Login temporarily unavailable');
    }
    if (verdict.kind === 'locked') throw new Error('Too many failed logins: locked out for a while, try again later');
    if (verdict.kind !== 'accepted') throw new Error('Login incorrect');
    const scope = verdict.login;
    // the key was right; without TLS only a network-limited upload key may go on (no lockout count)
    const plainRefusal = plainFtpRefusal(connection.secure, scope);
    if (plainRefusal) {
      deps.metrics.inc('loginsRefusedPlaintext');
      deps.log.warn(
        { session: session.id, address, accountId: scope.accountId, uploadKey: scope.uploadKey?.id },
        'ftp login refused: plain FTP with a key that is not network-limited',
      );
      throw new Error(plainRefusal);
    }
    if (session.closed) throw new Error('Session closed');
    if (!this.logins.admit(scope.accountId, connection.id, at)) {
      refuseAndClose(connection, 421, `Too many connections for this account (at most ${this.logins.maxPerAccount}), try again later`);
      throw new Error('Too many connections for this account');
    }
    session.scope = scope;
    session.username = username;
    session.key = password;
    session.fs = new IntakeFileSystem(
      connection.ftpConnection,
      { scope, username, address, traceId: `ftp-${session.id}` },
      {
        receiver: deps.receiver,
        listLimit: options.listLimit,
        held: this.held,
        maxDocumentBytes: options.maxUploadBytes,
        onError: (err) => deps.log.error({ err, session: session.id }, 'ftp directory could not be read'),
      },
    );
    session.preLogin?.loggedIn();
    deps.metrics.inc('loginsSucceeded');
    deps.log.info({ session: session.id, address, accountId: scope.accountId, mode: scope.mode, secure: connection.secure }, 'ftp login');
    return { fs: session.fs };
  }
}
