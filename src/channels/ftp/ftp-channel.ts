// The embedded FTP/FTPS server: ftp-srv with the intake virtual file system, the login rules
// (TLS first, lockout, per-account limit), connection limits and the idle timeout.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecureContext, type SecureContext } from 'node:tls';
import { FtpSrv, type FtpConnection } from 'ftp-srv';
import type { Logger } from '../../app/logger.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/pdf.ts';
import type { Scope } from '../../domain/scope.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import { installCommands } from './ftp-commands.ts';
import { lsLine } from './directory-listing.ts';
import type { FtpMetrics } from './ftp-metrics.ts';
import { FtpSession } from './ftp-session.ts';
import type { FtpSrvConnection, FtpSrvServer } from './ftp-srv-internals.ts';
import { IntakeFileSystem, type EntryStat } from './intake-file-system.ts';
import { failureDelayMs } from './lockout-policy.ts';
import { PortRange } from './passive-connector.ts';
import type { LoginLockout } from './login-lockout.ts';

export interface FtpChannelOptions {
  host: string;
  port: number;
  /** the address PASV announces (an IP); local clients get their own address */
  pasvAddress: string;
  pasvRange: [number, number];
  tls?: { cert: Buffer; key: Buffer };
  requireTls: boolean;
  idleTimeoutMs: number;
  transferTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerAccount: number;
  listLimit: number;
  maxUploadBytes?: number;
  /** temporary uploads (x.pdf.filepart) one session may hold before renaming them */
  maxPendingPerSession?: number;
  truncationGraceMs?: number;
  /** ftp-srv's own log lines (debug only: it logs every refused command as an error) */
  libraryLogLevel?: string;
}

export interface FtpChannelDeps {
  accounts: {
    authenticateFtp(username: string, password: string): Promise<Scope | undefined>;
    authenticate(key: string): Promise<Scope | undefined>;
  };
  receiver: IntakeReceiver;
  lockout: LoginLockout;
  metrics: FtpMetrics;
  log: Logger;
}

export class FtpChannel {
  private srv?: FtpSrv & FtpSrvServer;
  private readonly sessions = new Map<string, FtpSession>();
  private readonly perAccount = new Map<string, Set<string>>();
  private secureContext?: SecureContext;
  private ports: PortRange;
  private draining = false;
  private listening = false;
  port = 0;

  constructor(
    private readonly o: FtpChannelOptions,
    private readonly d: FtpChannelDeps,
  ) {
    this.ports = new PortRange(o.pasvRange[0], o.pasvRange[1]);
  }

  get url(): string {
    return `ftp://${this.o.host}:${this.port}`;
  }

  /** Whether the server is accepting connections (readiness). */
  get ready(): boolean {
    return this.listening && !this.draining;
  }

  async start(): Promise<void> {
    const { o, d } = this;
    const greeting = ['invoice-intake FTP: upload <invoice_number>.pdf or <invoice_id>.pdf'];
    if (o.requireTls) greeting.push('FTPS required: send AUTH TLS before logging in');
    // TLS 1.2 at least, on the control connection (AUTH TLS) and on data connections
    const tls = o.tls ? { cert: o.tls.cert, key: o.tls.key, minVersion: 'TLSv1.2' as const } : undefined;
    this.secureContext = tls && createSecureContext(tls);
    const before = new Map(['SIGTERM', 'SIGINT', 'SIGQUIT'].map((s) => [s, process.listeners(s as NodeJS.Signals)]));
    const srv = new FtpSrv({
      url: `ftp://${o.host}:${o.port}`,
      pasv_url: o.pasvAddress,
      pasv_min: o.pasvRange[0],
      pasv_max: o.pasvRange[1],
      greeting,
      anonymous: false,
      tls: (tls ?? false) as never,
      // timeouts are ours (ftp-srv's socket timeout would also fire on the control connection during long uploads)
      timeout: 0,
      log: d.log.child({ part: 'ftp-srv' }, { level: o.libraryLogLevel ?? 'silent' }),
      file_format: ((stat: EntryStat) => lsLine(stat, stat.group)) as never,
    }) as FtpSrv & FtpSrvServer;
    // ftp-srv exits the process on these signals; the service's own shutdown closes the server.
    for (const [signal, kept] of before) {
      for (const fn of process.listeners(signal as NodeJS.Signals)) if (!kept.includes(fn)) process.off(signal, fn);
    }
    this.srv = srv;
    srv.on('connect' as never, ((e: { connection: FtpConnection }) => this.onConnect(e.connection as FtpSrvConnection)) as never);
    srv.on('disconnect', (e) => this.onDisconnect(e.id));
    srv.on('login', (data, resolve, reject) => {
      this.onLogin(data.connection as FtpSrvConnection, data.username, data.password).then(resolve, reject);
    });
    srv.on('client-error', ({ context, error }) => d.log.debug({ context, err: error.message }, 'ftp client error'));
    srv.on('server-error' as never, ((e: { error: Error }) => d.log.error({ err: e.error }, 'ftp server error')) as never);
    await srv.listen();
    const address = srv.server.address();
    this.port = typeof address === 'object' && address ? address.port : o.port;
    this.listening = true;
  }

  /** Stops accepting, lets running uploads finish within graceMs, then closes every connection. */
  async stop(graceMs = 0): Promise<void> {
    const srv = this.srv;
    if (!srv || this.draining) return;
    this.draining = true;
    srv.server.close();
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && [...this.sessions.values()].some((s) => s.transfer)) await sleep(50);
    await srv.close();
    this.listening = false;
  }

  private onConnect(connection: FtpSrvConnection) {
    const { o, d } = this;
    const session = new FtpSession(connection, randomBytes(6).toString('hex'), o.idleTimeoutMs, (s) => {
      d.log.info({ session: s.id, address: s.address }, 'ftp session idle: closing');
      // ftp-srv's declaration types the message as a number; it is sent as text
      void Promise.resolve(s.connection.close(421, 'Idle timeout: closing control connection' as never)).catch(() => undefined);
    });
    this.sessions.set(connection.id, session);
    d.metrics.gauges.connections++;
    const raw = connection.commandSocket;
    // Replies are small writes the client must see at once: with Nagle on, a 226 that follows the
    // 150 waits for the client's delayed ACK of the 150 (40 ms per upload, a sequential client's
    // throughput halved). The TLS socket of AUTH TLS writes through this one.
    raw.setNoDelay(true);
    // 'end'/'close' of the TLS control socket are re-emitted on the raw one (ftp-srv's AUTH TLS)
    raw.once('end', () => session.markClosed());
    raw.once('close', () => session.markClosed());
    if (this.draining || Object.keys(this.srv!.connections).length > o.maxConnections) {
      d.metrics.inc('connectionsRefused');
      d.log.warn({ address: session.address, draining: this.draining }, 'ftp connection refused: too many connections');
      // written before ftp-srv's greeting, which then finds the socket closed
      raw.end('421 Too many connections, try again later\r\n');
      return;
    }
    d.metrics.inc('connectionsAccepted');
    installCommands(session, {
      secureContext: this.secureContext,
      requireTls: o.requireTls,
      maxUploadBytes: o.maxUploadBytes ?? MAX_DOCUMENT_BYTES,
      transferTimeoutMs: o.transferTimeoutMs,
      truncationGraceMs: o.truncationGraceMs ?? 250,
      metrics: d.metrics,
      log: d.log,
      passive: { host: o.host, ports: this.ports, address: o.pasvAddress },
      keyStillValid: async (s) => {
        const now = s.key ? await d.accounts.authenticate(s.key) : undefined;
        return Boolean(now && s.scope && now.accountId === s.scope.accountId && now.mode === s.scope.mode);
      },
    });
    session.armIdleTimer();
  }

  private onDisconnect(id: string) {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.d.metrics.gauges.connections--;
    session.markClosed();
    const mine = session.scope && this.perAccount.get(session.scope.accountId);
    if (mine) {
      mine.delete(id);
      if (!mine.size) this.perAccount.delete(session.scope!.accountId);
    }
    const dropped = session.fs?.discardPending() ?? [];
    if (dropped.length) this.d.log.info({ session: session.id, names: dropped.map((p) => p.name) }, 'ftp session ended with temporary uploads never renamed: dropped');
  }

  /** ftp-srv's login event: TLS first, lockout, key check, per-account limit. Rejections become 530. */
  private async onLogin(connection: FtpSrvConnection, username: string, password: string) {
    const { o, d } = this;
    const session = this.sessions.get(connection.id);
    if (!session) throw new Error('Session closed');
    if (o.requireTls && !connection.secure) throw new Error('TLS required: send AUTH TLS before USER and PASS');
    const address = session.address;
    // client input: logged cut short
    const user = username.slice(0, 128);
    let scope: Scope | undefined;
    try {
      const locked = await withTimeout(d.lockout.locked(address, username), LOCKOUT_TIMEOUT_MS);
      if (locked) {
        d.metrics.inc('loginsRefusedLockedOut');
        d.log.warn({ session: session.id, address, username: user, subject: locked }, 'ftp login refused: locked out');
        throw new LoginRefused('Too many failed logins: locked out for a while, try again later');
      }
      scope = await d.accounts.authenticateFtp(username, password);
      if (!scope) {
        d.metrics.inc('loginsFailed');
        const { counts, locked: nowLocked } = await withTimeout(d.lockout.recordFailure(address, username), LOCKOUT_TIMEOUT_MS);
        d.log.info({ session: session.id, address, username: user, failures: counts }, 'ftp login failed');
        for (const subject of nowLocked) {
          d.log.warn({ address, username: user, subject, lockoutMs: d.lockout.settings.lockoutMs }, 'ftp login locked out after repeated failures');
          d.metrics.lockout({ subject, address, username: user, lockoutMs: d.lockout.settings.lockoutMs });
        }
        await sleep(failureDelayMs(Math.max(counts.address, counts.user)));
        throw new LoginRefused('Login incorrect');
      }
      await withTimeout(d.lockout.recordSuccess(address, username), LOCKOUT_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof LoginRefused) throw err;
      d.log.error({ err, session: session.id }, 'ftp login could not be checked');
      refuseAndClose(connection, 421, 'Login temporarily unavailable, try again later');
      throw new Error('Login temporarily unavailable');
    }
    const mine = this.perAccount.get(scope.accountId) ?? new Set<string>();
    if (mine.size >= o.maxConnectionsPerAccount) {
      d.metrics.inc('connectionsRefused');
      d.log.warn({ session: session.id, accountId: scope.accountId, limit: o.maxConnectionsPerAccount }, 'ftp login refused: too many connections for the account');
      refuseAndClose(connection, 421, `Too many connections for this account (at most ${o.maxConnectionsPerAccount}), try again later`);
      throw new Error('Too many connections for this account');
    }
    if (session.closed) throw new Error('Session closed');
    mine.add(connection.id);
    this.perAccount.set(scope.accountId, mine);
    session.scope = scope;
    session.username = username;
    session.key = password;
    session.fs = new IntakeFileSystem(connection, { scope, username, address, traceId: `ftp-${session.id}` }, {
      receiver: d.receiver,
      listLimit: o.listLimit,
      maxPending: o.maxPendingPerSession ?? 4,
      onError: (err) => d.log.error({ err, session: session.id }, 'ftp directory could not be read'),
    });
    d.metrics.inc('loginsSucceeded');
    d.log.info({ session: session.id, address, accountId: scope.accountId, mode: scope.mode, secure: connection.secure }, 'ftp login');
    return { fs: session.fs };
  }
}

class LoginRefused extends Error {}

// Redis commands wait while Redis is away (maxRetriesPerRequest: null): a login must not.
const LOCKOUT_TIMEOUT_MS = 5000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A final reply written before ftp-srv's own 530, which then finds the socket closed. */
function refuseAndClose(connection: FtpSrvConnection, code: number, message: string) {
  try {
    connection.commandSocket.end(`${code} ${message}\r\n`);
  } catch {
    // already gone
  }
}
