// The SMTP receiver (nodemailer's smtp-server): mail for import addresses straight from an MX or
// a relay. RCPT TO is refused at once for an address no account has; DATA is answered 250 only
// once the raw message (envelope, client, HELO, who sent it) is committed, as FTP's 226, and then
// handed to the pipeline (in this process, or by a job). Whatever fails before that commit is a 4xx: the sender retries.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { newId } from '../../domain/ids.ts';
import type { Logger } from '../../platform/logger.ts';
import { headerBlock } from './message-key.ts';
import type { SenderCheck } from './sender-checks.ts';
import type { SmtpMessageInput } from './smtp-message-repository.ts';

export interface SmtpReceiverSettings {
  host: string;
  port: number;
  /** the name in the greeting */
  hostname: string;
  /** STARTTLS with this key and certificate (TLS 1.2 or higher) */
  tls?: { key: Buffer; cert: Buffer };
  /** SIZE, advertised and enforced (552) */
  maxMessageBytes: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  messagesPerSenderPerHour: number;
  idleTimeoutMs: number;
  /** the whole of one DATA, from its 354 to the final dot: past it 451 4.4.2, the connection closed, nothing kept */
  dataTimeoutMs: number;
  /** messages being checked and committed at once; more get 451 */
  maxPending: number;
}

export type RecipientState = 'ok' | 'unknown' | 'disabled';

export interface SmtpReceiverPorts {
  /** whether an address is an import address of an account that takes mail */
  recipient(address: string): Promise<RecipientState>;
  check: SenderCheck;
  /** commits the message; a duplicate (same dedupe key) answers the first one's id */
  commit(message: SmtpMessageInput): Promise<{ id: string; duplicate: boolean }>;
  /** after the commit: start its processing (a lost start is the reconciler's); `message`: what was just committed (a duplicate's first row has `stored.id`) */
  committed(stored: { id: string; duplicate: boolean }, message: SmtpMessageInput): void;
  log: Logger;
}

/** An SMTP reply: the code, and (with ENHANCEDSTATUSCODES) its enhanced code put in front by smtp-server. */
function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Message-ID and the bytes: a retried message has both the same, two different messages never. */
export function dedupeKey(raw: Buffer): string {
  const id = /^message-id:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(headerBlock(raw).toString('latin1'))?.[1]?.trim() ?? '';
  return createHash('sha256').update(id).update('\0').update(raw).digest('hex');
}

const HOUR = 3_600_000;

export class SmtpReceiver {
  private readonly server: SMTPServer;
  private readonly byIp = new Map<string, Set<string>>();
  private readonly sent = new Map<string, number[]>();
  private pending = 0;
  private listening = false;

  constructor(
    private readonly settings: SmtpReceiverSettings,
    private readonly ports: SmtpReceiverPorts,
  ) {
    this.server = new SMTPServer({
      name: settings.hostname,
      banner: 'invoice-intake',
      size: settings.maxMessageBytes,
      rejectOversized: true,
      maxClients: settings.maxConnections,
      socketTimeout: settings.idleTimeoutMs,
      closeTimeout: 5000,
      // mail from the world: no AUTH, TLS offered when there is a certificate
      authOptional: true,
      disabledCommands: settings.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      hideSTARTTLS: !settings.tls,
      ...(settings.tls ? { key: settings.tls.key, cert: settings.tls.cert, minVersion: 'TLSv1.2' as const } : {}),
      disableReverseLookup: true,
      hideENHANCEDSTATUSCODES: false,
      maxRecipients: 100,
      logger: false,
      onConnect: (session, cb) => cb(this.admit(session)),
      onClose: (session) => this.leave(session),
      onMailFrom: (address, session, cb) => cb(this.mailFrom(address, session)),
      onRcptTo: (address, _session, cb) => void this.rcptTo(address).then(() => cb(), cb),
      onData: (stream, session, cb) => void this.data(stream, session).then((reply) => cb(null, reply), cb),
    });
    this.server.on('error', (err) => ports.log.warn({ err: err.message }, 'smtp server error'));
  }

  get port(): number | undefined {
    return this.listening ? (this.server.server.address() as AddressInfo).port : undefined;
  }

  get ready(): boolean {
    return this.listening;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(this.settings.port, this.settings.host, () => {
        this.server.server.off('error', reject);
        this.listening = true;
        resolve();
      });
    });
  }

  /** Stops accepting; a DATA under way is answered until `graceMs`, then its connection is cut (nothing acknowledged). */
  stop(graceMs: number): Promise<void> {
    this.listening = false;
    return new Promise((resolve) => {
      const cut = setTimeout(() => resolve(), graceMs);
      cut.unref();
      this.server.close(() => {
        clearTimeout(cut);
        resolve();
      });
    });
  }

  private admit(session: SMTPServerSession): Error | undefined {
    const ip = session.remoteAddress;
    const open = this.byIp.get(ip) ?? new Set<string>();
    if (open.size >= this.settings.maxConnectionsPerIp) {
      this.ports.log.warn({ ip, open: open.size }, 'smtp connection refused: too many from this address');
      return smtpError(421, 'Too many connections from your address, try again later');
    }
    open.add(session.id);
    this.byIp.set(ip, open);
    return undefined;
  }

  private leave(session: SMTPServerSession): void {
    const open = this.byIp.get(session.remoteAddress);
    if (!open?.delete(session.id)) return;
    if (!open.size) this.byIp.delete(session.remoteAddress);
  }

  /** messages per sender per hour: the envelope sender, or the client's address for a bounce */
  private senderKey(session: SMTPServerSession, address?: string): string {
    const from = address ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : '');
    return from ? from.toLowerCase() : `<>@${session.remoteAddress}`;
  }

  private recentSends(key: string): number[] {
    const now = Date.now();
    const list = (this.sent.get(key) ?? []).filter((t) => t > now - HOUR);
    if (list.length) this.sent.set(key, list);
    else this.sent.delete(key);
    return list;
  }

  private mailFrom(address: SMTPServerAddress, session: SMTPServerSession): Error | undefined {
    const key = this.senderKey(session, address.address);
    if (this.recentSends(key).length < this.settings.messagesPerSenderPerHour) return undefined;
    this.ports.log.warn({ sender: key, ip: session.remoteAddress }, 'smtp sender over its hourly message limit');
    return smtpError(450, 'Too many messages from this sender, try again later');
  }

  private async rcptTo(address: SMTPServerAddress): Promise<void> {
    let state: RecipientState;
    try {
      state = await this.ports.recipient(address.address);
    } catch (err) {
      this.ports.log.warn({ err: (err as Error).message }, 'smtp recipient check failed');
      throw smtpError(451, 'Temporary failure checking the recipient, try again later');
    }
    if (state !== 'ok') throw smtpError(550, `No such import address: ${address.address}`);
  }

  /**
   * The message's bytes (those `keep` takes), or a rejection once SMTP_DATA_TIMEOUT_MS is over:
   * a sender that trickles bytes (each within the idle timeout) holds a connection and a pending
   * slot for no longer than that. Its answer cannot wait for a final dot that may never come:
   * 451 4.4.2 now and the connection closed, so the sender keeps the message and retries.
   */
  private readData(stream: SMTPServerDataStream, session: SMTPServerSession, keep: () => boolean): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const done = (err?: Error) => {
        clearTimeout(timer);
        stream.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
        if (err) reject(err);
        else resolve(chunks);
      };
      const onData = (chunk: Buffer) => void (keep() && chunks.push(chunk));
      const onEnd = () => done();
      const onClose = () => done(new Error('the connection closed during DATA'));
      const timer = setTimeout(() => {
        const seconds = Math.round(this.settings.dataTimeoutMs / 1000);
        this.ports.log.warn(
          { ip: session.remoteAddress, bytes: stream.byteLength, limitMs: this.settings.dataTimeoutMs },
          'smtp DATA took too long: answered 451, connection closed, nothing kept',
        );
        const connection = [...this.server.connections].find((c) => c.session === session);
        // 'CONNECTION_TIMEOUT' is smtp-server's context for the enhanced code 4.4.2
        connection?.send(451, `Message not received within ${seconds} s, try again later`, 'CONNECTION_TIMEOUT');
        connection?.close();
        done(smtpError(451, 'Message not received in time'));
      }, this.settings.dataTimeoutMs);
      stream.on('data', onData).once('end', onEnd).once('error', done).once('close', onClose);
    });
  }

  private async data(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const busy = this.pending >= this.settings.maxPending;
    this.pending++;
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    this.ports.log.debug({ ip: session.remoteAddress, mailFrom, rcptTo: session.envelope.rcptTo.length, busy }, 'smtp data started');
    try {
      const chunks = await this.readData(stream, session, () => !busy && !stream.sizeExceeded);
      // oversized: smtp-server answers 552 itself (rejectOversized), whatever this says
      if (stream.sizeExceeded) throw smtpError(552, 'Message too large');
      if (busy) throw smtpError(451, 'Too busy at the moment, try again later');
      const raw = Buffer.concat(chunks);
      const helo = session.hostNameAppearsAs || null;
      const verdict = await this.ports.check(raw, { clientIp: session.remoteAddress, helo, mailFrom });
      const message: SmtpMessageInput = {
        id: newId('msg'),
        dedupeKey: dedupeKey(raw),
        raw,
        mailFrom,
        rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
        clientIp: session.remoteAddress,
        helo,
        tls: session.secure,
        verdict,
      };
      let stored: { id: string; duplicate: boolean };
      try {
        stored = await this.ports.commit(message);
      } catch (err) {
        this.ports.log.error({ err: (err as Error).message, ip: session.remoteAddress }, 'smtp message not committed: answered 451, the sender retries');
        throw smtpError(451, 'Temporary failure storing the message, try again later');
      }
      const key = this.senderKey(session);
      this.sent.set(key, [...this.recentSends(key), Date.now()]);
      if (this.sent.size > 100_000) this.sent.clear();
      this.ports.log.info(
        {
          smtpMessage: stored.id,
          duplicate: stored.duplicate,
          ip: session.remoteAddress,
          helo,
          mailFrom,
          rcptTo: message.rcptTo,
          size: raw.length,
          tls: session.secure,
          spf: verdict.spf,
          dkim: verdict.dkimPassDomains,
          dmarc: verdict.dmarc,
          authenticated: verdict.authenticated,
        },
        stored.duplicate ? 'smtp message received again: already committed' : 'smtp message committed',
      );
      // a duplicate's first copy may still wait for its job: starting it again is harmless
      this.ports.committed(stored, message);
      return `Ok: queued as ${stored.id}`;
    } finally {
      this.pending--;
    }
  }
}
