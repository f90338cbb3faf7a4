// Data connections: PASV/EPSV open a passive port (passive-connector.ts), PORT/EPRT are refused
// (a server that connects out to its clients fails behind their NAT and firewalls, and with TLS no
// NAT helper can fix the address), and every transfer first checks that it has a passive
// connection, protected when TLS is required. A transfer that waits too long says in which phase.
import type { CommandContext } from './ftp-commands.ts';
import type { FtpSession } from './ftp-session.ts';
import { normalizeAddress } from '../transfer/lockout-policy.ts';
import type { StallPhase } from '../transfer/transfer-metrics.ts';
import { PassiveConnector, pasvReply } from './passive-connector.ts';

export const ACTIVE_MODE_REFUSED = 'Active mode (PORT/EPRT) is not supported: use passive mode (PASV or EPSV)';

/** Counts and logs a transfer that waited too long, with the phase it waited in. */
export function reportStall(session: FtpSession, ctx: CommandContext, phase: StallPhase, waitedMs: number, directive?: string): void {
  ctx.metrics.stall(phase);
  ctx.log.warn({ session: session.id, address: session.address, phase, waitedMs, directive }, `ftp transfer stalled waiting for ${STALL_TEXT[phase]}`);
}

const STALL_TEXT: Record<StallPhase, string> = {
  pasv: 'PASV/EPSV (a transfer command came without one)',
  tcp_accept: 'the client to connect to the passive port',
  tls_handshake: "the data connection's TLS handshake",
  after_150: 'data after the 150 reply',
};

/** PASV (extended: EPSV): a passive port for the next transfer. */
export async function openPassive(session: FtpSession, ctx: CommandContext, extended: boolean): Promise<unknown> {
  const connection = session.connection;
  connection.dropDataConnection();
  const connector = new PassiveConnector(session.address, {
    host: ctx.passive.host,
    ports: ctx.passive.ports,
    protection: () => (session.protectData ? ctx.secureContext : undefined),
    handshakeTimeoutMs: ctx.transferTimeoutMs,
    onIntruder: (address) => ctx.log.warn({ session: session.id, address, expected: session.address }, 'ftp data connection from another address refused'),
    onStall: (phase, waitedMs) => reportStall(session, ctx, phase, waitedMs),
  });
  connection.connector = connector;
  let port: number;
  try {
    port = await connector.listen();
  } catch (err) {
    ctx.log.error({ err, session: session.id }, 'ftp passive port unavailable');
    return connection.reply(425, 'No passive port free, try again later');
  }
  if (extended) return connection.reply(229, `Entering Extended Passive Mode (|||${port}|)`);
  const local = normalizeAddress(connection.socket.localAddress);
  const address = /^127\./.test(session.address) && /^\d+\.\d+\.\d+\.\d+$/.test(local) ? local : ctx.passive.address;
  return connection.reply(227, `Entering Passive Mode (${pasvReply(address, port)})`);
}

/**
 * Refuses a transfer command that came after PASV/EPSV: the reply goes out first, and the data
 * connection is closed only once the client can take that (PassiveConnector.closeAfterHandshake),
 * so that it reads the refusal whatever the timing (a busy machine made the difference).
 */
export async function refuseTransfer(session: FtpSession, code: number, text: string): Promise<unknown> {
  const connection = session.connection;
  const connector = connection.connector;
  const sent = await connection.reply(code, text);
  if (connector instanceof PassiveConnector) connector.closeAfterHandshake();
  else connection.dropDataConnection();
  return sent;
}

/**
 * Whether a transfer command (STOR, RETR, LIST, NLST) may go on: it needs a passive connection,
 * TLS-protected when TLS is required. If not, the refusal has been sent.
 */
export async function dataConnectionReady(session: FtpSession, ctx: CommandContext, directive: string): Promise<boolean> {
  const connection = session.connection;
  if (!(connection.connector instanceof PassiveConnector && connection.connector.open)) {
    reportStall(session, ctx, 'pasv', 0, directive);
    await connection.reply(425, 'No data connection: send PASV or EPSV first');
    return false;
  }
  if (ctx.requireTls && !session.protectData) {
    await refuseTransfer(session, 521, 'Data connections must be encrypted: send PBSZ 0 and PROT P first');
    return false;
  }
  return true;
}
