// The embedded SFTP server (ssh2): host keys, connection limits (per address before login, from a
// net.Server of ours that hands admitted sockets to ssh2; in total), logins (sftp-login.ts), and one
// `sftp` subsystem per session over the account-and-mode's flat directory (sftp-requests.ts).
// Nothing else an SSH server offers is served: no shell, no exec, no port forwarding (ssh2
// refuses every channel and request that has no listener here).
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import ssh2, { type Connection } from 'ssh2';
import type { Logger } from '../../platform/logger.ts';
import { settledBefore } from '../../platform/timeouts.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/document-facts.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import { HeldUploads, type HeldContent } from '../transfer/held-uploads.ts';
import type { PreLoginGate, PreLoginTicket } from '../transfer/pre-login-gate.ts';
import { ListenerState, type TransferServerOptions } from '../transfer/listener-state.ts';
import { TransferDirectory } from '../transfer/transfer-directory.ts';
import { TransferLogins, type TransferLoginDeps } from '../transfer/transfer-login.ts';
import { authenticate, type LoginContext } from './sftp-login.ts';
import type { SftpAccounts } from './sftp-ports.ts';
import { serveRequests } from './sftp-requests.ts';
import { SftpSession } from './sftp-session.ts';
import { advertiseSftpExtensions, fixServerSigAlgs, sendExitStatus } from './ssh2-adapter.ts';

export interface SftpChannelOptions extends TransferServerOptions {
  /** private host keys (OpenSSH or PEM text) */
  hostKeys: string[];
  maxOpenUploads?: number;
}

export interface SftpChannelDeps {
  accounts: SftpAccounts;
  receiver: IntakeReceiver;
  lockout: TransferLoginDeps['lockout'];
  gate: PreLoginGate;
  metrics: TransferMetrics;
  log: Logger;
}

export class SftpChannel {
  /** accepts the TCP connections: the limits before login apply before ssh2 reads a byte */
  private front?: Server;
  /** admitted sockets not yet identified to ssh2 (its `connection` event), by remote address and port */
  private readonly tickets = new Map<string, PreLoginTicket>();
  private readonly clients = new Map<SftpSession, Connection>();
  private readonly logins: TransferLogins<SftpSession>;
  private readonly held: HeldUploads<HeldContent>;
  private readonly state = new ListenerState();
  port = 0;

  /** Whether the server is accepting connections (readiness). */
  get ready(): boolean {
    return this.state.ready;
  }

  constructor(
    private readonly options: SftpChannelOptions,
    private readonly deps: SftpChannelDeps,
  ) {
    this.held = HeldUploads.forServer('sftp', options, deps.log);
    this.logins = new TransferLogins('sftp', options.maxConnectionsPerAccount, deps);
  }

  get url(): string {
    return `sftp://${this.options.host}:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new ssh2.Server({ hostKeys: this.options.hostKeys, ident: 'invoice-intake' }, (client, info) =>
      this.onConnection(client, info.ip, this.takeTicket(info.ip, info.port)),
    );
    server.on('error', (err: Error) => this.deps.log.error({ err }, 'sftp server error'));
    const front = createServer((socket) => this.onSocket(socket, server));
    this.front = front;
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.listen(this.options.port, this.options.host, () => {
        front.off('error', reject);
        resolve();
      });
    });
    front.on('error', (err: Error) => this.deps.log.error({ err }, 'sftp server error'));
    const address = front.address();
    this.port = typeof address === 'object' && address ? address.port : this.options.port;
    this.state.listening = true;
  }

  /** Stops accepting, lets open uploads finish (and be staged) within graceMs, then ends every connection. */
  async stop(graceMs = 0): Promise<void> {
    const front = this.front;
    if (!front || !this.state.beginDrain()) return;
    const closed = new Promise<void>((resolve) => front.close(() => resolve()));
    await this.state.uploadsSettled(() => [...this.clients.keys()].some((s) => s.busy), graceMs);
    for (const client of this.clients.values()) client.end();
    await settledBefore(closed, Date.now() + 1000);
    this.held.clear();
    this.state.listening = false;
  }

  /** A TCP connection: refused when its address is over its budget, else handed to ssh2 with its deadline running. */
  private onSocket(socket: Socket, server: ssh2.Server) {
    socket.on('error', () => {});
    const admission = this.deps.gate.admit(socket.remoteAddress, () => socket.destroy());
    if (!admission.ok) {
      // RFC 4253 4.2 lets a server send lines before its identification: people with nc read why
      socket.end('Too many connections from your address, try again later\r\n', () => socket.destroy());
      return;
    }
    const key = `${socket.remoteAddress}|${socket.remotePort}`;
    this.tickets.set(key, admission.ticket);
    socket.once('close', () => {
      admission.ticket.closed();
      if (this.tickets.get(key) === admission.ticket) this.tickets.delete(key);
    });
    server.injectSocket(socket);
  }

  private takeTicket(ip: string, port: number): PreLoginTicket | undefined {
    const key = `${ip}|${port}`;
    const ticket = this.tickets.get(key);
    this.tickets.delete(key);
    return ticket;
  }

  private onConnection(client: Connection, ip: string, ticket: PreLoginTicket | undefined) {
    const { options, deps } = this;
    fixServerSigAlgs(client);
    const session = new SftpSession(randomBytes(6).toString('hex'), ip, options.idleTimeoutMs, (s) => {
      deps.log.info({ session: s.id, address: s.address }, 'sftp session idle: closing');
      client.end();
    });
    client.on('error', (err) => deps.log.debug({ session: session.id, err: err.message }, 'sftp connection error'));
    if (this.state.draining || this.clients.size >= options.maxConnections) {
      deps.metrics.inc('connectionsRefused');
      deps.log.warn({ address: session.address, draining: this.state.draining }, 'sftp connection refused: too many connections');
      client.end();
      return;
    }
    this.clients.set(session, client);
    deps.metrics.connectionOpened();
    deps.metrics.inc('connectionsAccepted');
    session.idle.arm();
    client.on('close', () => this.onClose(session));
    const login: LoginContext = { accounts: deps.accounts, logins: this.logins, metrics: deps.metrics, log: deps.log };
    client.on('authentication', (ctx) => void authenticate(ctx, session, login));
    client.on('ready', () => {
      ticket?.loggedIn();
      const l = session.login!;
      session.dir = new TransferDirectory(
        { scope: l.scope, channel: 'sftp', sender: `${l.username}@${session.address}`, traceId: session.traceId },
        {
          receiver: deps.receiver,
          listLimit: options.listLimit,
          held: this.held,
          maxDocumentBytes: options.maxUploadBytes,
          onError: (err) => deps.log.error({ err, session: session.id }, 'sftp directory could not be read'),
        },
      );
      client.on('session', (accept) => {
        const channel = accept();
        channel.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          advertiseSftpExtensions(sftp);
          // the client's EOF ends the subsystem: exit status 0 (scp checks it), as sshd sends when
          // its sftp-server exits, then the channel closes
          sftp.on('end', () => {
            sendExitStatus(sftp, 0);
            sftp.end();
          });
          sftp.on('error', (err: Error) => deps.log.debug({ session: session.id, err: err.message }, 'sftp stream error'));
          serveRequests(sftp, session, {
            maxUploadBytes: options.maxUploadBytes ?? MAX_DOCUMENT_BYTES,
            maxArchiveBytes: options.maxArchiveBytes ?? options.maxUploadBytes ?? MAX_DOCUMENT_BYTES,
            maxOpenUploads: options.maxOpenUploads ?? 8,
            metrics: deps.metrics,
            log: deps.log,
            stillValid: (s) => this.stillValid(s),
            expel: (s) => {
              deps.log.info(
                { session: s.id, accountId: s.login?.scope.accountId, mode: s.login?.scope.mode },
                'sftp session closed: its key was rotated or removed, or its account disabled',
              );
              client.end();
            },
          });
        });
      });
    });
  }

  private async stillValid(s: SftpSession): Promise<boolean> {
    const l = s.login;
    if (!l) return false;
    const [stamp, registered] = await Promise.all([this.deps.accounts.keyStamp(l.scope), l.sshKeyId ? this.deps.accounts.sshKeyRegistered(l.sshKeyId) : true]);
    return stamp === l.keyStamp && registered;
  }

  private onClose(session: SftpSession) {
    if (!this.clients.delete(session)) return;
    const { deps } = this;
    deps.metrics.connectionClosed();
    this.logins.release(session.login?.scope.accountId, session);
    const dropped = session.end();
    for (const _ of dropped.uploads) deps.metrics.transferEnded();
    if (dropped.uploads.length) deps.metrics.inc('uploadsAborted', dropped.uploads.length);
    if (dropped.uploads.length) deps.log.info({ session: session.id, ...dropped }, 'sftp session ended with unfinished uploads: dropped');
  }
}
