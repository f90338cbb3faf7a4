// The FTP commands this channel answers itself, in front of ftp-srv's dispatcher. ftp-srv keeps
// the rest (AUTH/PBSZ/PROT, PASV/EPSV, LIST/NLST/SIZE/MDTM via the virtual file system, ...).
//
// Why each is taken over:
// - AUTH TLS: ftp-srv wraps the socket in TLS a few event-loop turns after its 234 reply (bluebird
//   schedules with setImmediate), so a fast client's TLS hello can arrive before and be read as a
//   command: the session hangs. Here the socket is wrapped in the same turn as the 234 is written.
// - USER/PASS: refused before AUTH TLS when TLS is required (ftp-srv has no such rule).
// - STOR: ftp-srv pauses the control socket during a transfer, so it cannot see a client that
//   dies mid-upload, and it acknowledges whatever arrived; it also answers every failure with 550.
//   Here the cap is enforced while streaming (552), a vanished client stages nothing, the file is
//   handed to intake before the 226, and staging failures are a transient 451.
// - RETR/RNFR/RNTO/DELE/MKD/RMD/SITE/APPE/STOU: refused or answered with their proper codes.
// - ABOR/QUIT: abort a running upload.
// - PASV/EPSV: data connections through passive-connector.ts instead of ftp-srv's.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Logger } from '../../app/logger.ts';
import type { FtpMetrics } from './ftp-metrics.ts';
import type { FtpSession } from './ftp-session.ts';
import type { FtpSrvConnection, ParsedCommand } from './ftp-srv-internals.ts';
import { FtpReplyError, type AcceptResult } from './intake-file-system.ts';
import { normalizeAddress } from './lockout-policy.ts';
import { PassiveConnector, pasvReply, type PortRange } from './passive-connector.ts';
import { settleDelayMs } from './upload-completeness.ts';
import { classifyUploadName } from './upload-names.ts';
import { readUpload } from './upload-transfer.ts';

export interface CommandContext {
  /** the FTPS certificate's context (TLS 1.2 minimum); none: AUTH TLS is refused */
  secureContext?: SecureContext;
  requireTls: boolean;
  maxUploadBytes: number;
  transferTimeoutMs: number;
  /** wait for a disconnect this long before staging an upload that does not end like a PDF */
  truncationGraceMs: number;
  metrics: FtpMetrics;
  log: Logger;
  /** whether the session's key is still the account's key (a rotated key stops working at once) */
  keyStillValid: (session: FtpSession) => Promise<boolean>;
  passive: {
    host: string;
    ports: PortRange;
    /** what PASV announces; clients on the loopback get the address they connected to */
    address: string;
  };
}

type Handler = (cmd: ParsedCommand) => Promise<unknown>;

/** Commands that must be answered while an upload runs instead of waiting behind it. */
const URGENT = new Set(['ABOR', 'QUIT', 'NOOP', 'STAT']);

/** Commands that read or hand in files: each checks again that the session's key is still valid. */
const KEY_CHECKED = new Set(['STOR', 'RETR', 'LIST', 'NLST', 'SIZE', 'MDTM', 'RNFR', 'RNTO', 'DELE']);

export function installCommands(session: FtpSession, ctx: CommandContext): void {
  const connection = session.connection;
  const commands = connection.commands;
  const delegate = commands.handle.bind(commands);
  const ours = handlers(session, ctx, delegate);

  commands.handle = (message: string | ParsedCommand) => {
    const cmd = typeof message === 'string' ? commands.parse(message) : message;
    session.touch();
    const dispatch = () => (ours[cmd.directive] ?? ((c: ParsedCommand) => Promise.resolve(delegate(c))))(cmd);
    const run = async () => {
      if (KEY_CHECKED.has(cmd.directive) && connection.authenticated && session.scope && !(await ctx.keyStillValid(session))) {
        ctx.log.info({ session: session.id, accountId: session.scope.accountId, mode: session.scope.mode }, 'ftp session closed: its key was rotated');
        connection.commandSocket.end('530 The key was replaced: log in again with the new key\r\n');
        return;
      }
      return dispatch();
    };
    if (session.transfer && URGENT.has(cmd.directive)) return run().catch((err) => unexpected(err, cmd));
    const next = session.queue.then(run).catch((err) => unexpected(err, cmd));
    session.queue = next;
    return next;
  };

  function unexpected(err: unknown, cmd: ParsedCommand) {
    ctx.log.error({ err, session: session.id, directive: cmd.directive }, 'ftp command failed');
    return reply(connection, 451, 'Local error in processing');
  }
}

/** Sends a reply; a client that has gone away is not an error. */
function reply(connection: FtpSrvConnection, code: number, message: string): Promise<unknown> {
  return Promise.resolve(connection.reply(code, message)).catch(() => undefined);
}

function handlers(session: FtpSession, ctx: CommandContext, delegate: (cmd: ParsedCommand) => unknown): Record<string, Handler> {
  const connection = session.connection;
  const { metrics, log } = ctx;
  const pass = (cmd: ParsedCommand) => Promise.resolve(delegate(cmd));
  const dropDataConnection = () => {
    try {
      connection.connector.end();
    } catch {
      // no data connection was set up
    }
  };
  const loggedIn = () => Boolean(connection.authenticated && session.fs);
  const refuseFsError = (err: unknown) => {
    if (err instanceof FtpReplyError) return reply(connection, err.code, err.message);
    throw err;
  };

  const plaintextRefused = (cmd: ParsedCommand) => {
    if (!ctx.requireTls || connection.secure) return false;
    metrics.inc('loginsRefusedPlaintext');
    log.info({ session: session.id, address: session.address, directive: cmd.directive }, 'ftp login refused before AUTH TLS');
    return true;
  };
  const TLS_REQUIRED = 'TLS required: send AUTH TLS before USER and PASS (use FTPS, explicit)';

  const notLoggedIn = () => reply(connection, 530, 'Not logged in');
  const notSupported = (text: string) => async () => {
    if (!loggedIn()) return notLoggedIn();
    return reply(connection, 502, text);
  };
  const flatDirectory = async () => {
    if (!loggedIn()) return notLoggedIn();
    return reply(connection, 550, 'Permission denied: the directory is flat');
  };

  const describe = (name: string, r: AcceptResult) =>
    r.kind === 'held'
      ? `${r.name} held: rename it to its final .pdf name to hand it in`
      : `${name} received as ${r.record.id}, status ${r.record.status}${r.record.reason ? `: ${r.record.reason}` : ''}`;

  /** A hand-over to intake: refusals keep their code; anything else is transient (451). */
  const handOverFailed = (err: unknown, name: string) => {
    if (err instanceof FtpReplyError) return reply(connection, err.code, err.message);
    metrics.inc('uploadsStagingFailed');
    log.error({ err, session: session.id, name }, 'ftp upload could not be handed to intake');
    return reply(connection, 451, `${name} was not received (the intake is unavailable); please try again later`);
  };

  async function stor(cmd: ParsedCommand) {
    if (!loggedIn()) return notLoggedIn();
    const fs = session.fs!;
    const verdict = classifyUploadName(cmd.arg);
    if (verdict.kind === 'refused') {
      dropDataConnection();
      metrics.inc('uploadsRefusedName');
      log.info({ session: session.id, name: cmd.arg, reason: verdict.reason }, 'ftp upload name refused');
      return reply(connection, 553, verdict.reason);
    }
    if (connection.restByteCount) {
      connection.restByteCount = 0;
      dropDataConnection();
      return reply(connection, 554, 'Resuming uploads is not supported: upload the whole file');
    }
    if (verdict.kind === 'temp' && !fs.canHold(verdict.name)) {
      dropDataConnection();
      return reply(connection, 452, 'Too many temporary uploads wait for their rename');
    }
    let socket;
    try {
      socket = await connection.connector.waitForConnection();
    } catch {
      dropDataConnection();
      return reply(connection, 425, 'No data connection: send PASV or EPSV first');
    }
    const abort = new AbortController();
    let finished!: () => void;
    session.transfer = { abort, done: new Promise<void>((r) => (finished = r)) };
    metrics.gauges.transfers++;
    const name = verdict.name;
    try {
      await reply(connection, 150, `Ready to receive ${name}`);
      let capReplied = false;
      const tooLarge = `${name} is larger than ${ctx.maxUploadBytes} bytes (5 MB): refused, nothing was received`;
      const outcome = await readUpload(socket, {
        maxBytes: ctx.maxUploadBytes,
        stallMs: ctx.transferTimeoutMs,
        signal: abort.signal,
        // bytes a client sends after the 552 are dropped, up to one more cap's worth
        drainBytes: ctx.maxUploadBytes,
        onTooLarge: () => {
          capReplied = true;
          void reply(connection, 552, tooLarge);
        },
        onProgress: (n) => metrics.inc('bytesReceived', n),
      });
      if (outcome.kind === 'too-large') {
        metrics.inc('uploadsRefusedTooLarge');
        log.info({ session: session.id, name, received: outcome.received }, 'ftp upload over the size cap refused');
        if (!capReplied) await reply(connection, 552, tooLarge);
        return;
      }
      if (outcome.kind === 'aborted') {
        metrics.inc('uploadsAborted');
        log.info({ session: session.id, name, reason: outcome.reason, received: outcome.received }, 'ftp upload aborted; nothing received');
        if (!session.closed) await reply(connection, 426, `Transfer aborted (${outcome.reason}): ${name} was not received`);
        return;
      }
      const bytes = outcome.bytes;
      // a client that died mid-upload closes its control connection too: see upload-completeness.ts
      const wait = settleDelayMs(bytes, ctx.truncationGraceMs);
      await (wait > 0 ? sleep(wait) : nextTurn());
      if (session.closed || abort.signal.aborted) {
        metrics.inc('uploadsAborted');
        log.info({ session: session.id, name, size: bytes.length }, 'ftp client left before its upload was confirmed; nothing received');
        if (!session.closed) await reply(connection, 426, `Transfer aborted: ${name} was not received`);
        return;
      }
      let result: AcceptResult;
      try {
        result = await fs.accept(name, bytes);
      } catch (err) {
        return handOverFailed(err, name);
      }
      metrics.inc(result.kind === 'held' ? 'tempUploadsHeld' : 'uploadsReceived');
      log.info(
        { session: session.id, name, size: bytes.length, intakeId: result.kind === 'received' ? result.record.id : undefined, held: result.kind === 'held' },
        'ftp upload received',
      );
      return reply(connection, 226, describe(name, result));
    } finally {
      session.transfer = undefined;
      metrics.gauges.transfers--;
      dropDataConnection();
      session.touch();
      finished();
    }
  }

  /** Explicit FTPS, as ftp-srv's auth.js does it but without the gap between reply and wrap. */
  function upgradeToTls() {
    const raw = connection.commandSocket;
    raw.write('234 Honored\r\n');
    const secure = new TLSSocket(raw, { isServer: true, secureContext: ctx.secureContext });
    // ftp-srv's listeners (commands, close, timeout) sit on the raw socket
    for (const event of ['data', 'timeout', 'end', 'close', 'drain', 'error']) {
      secure.on(event, (...args: unknown[]) => raw.emit(event, ...args));
    }
    connection.commandSocket = secure;
    connection.secure = true;
  }

  async function passive(extended: boolean) {
    if (!loggedIn()) return notLoggedIn();
    dropDataConnection();
    const connector = new PassiveConnector(session.address, {
      host: ctx.passive.host,
      ports: ctx.passive.ports,
      secureContext: connection.secure ? ctx.secureContext : undefined,
      onIntruder: (address) => log.warn({ session: session.id, address, expected: session.address }, 'ftp data connection from another address refused'),
    });
    connection.connector = connector as never;
    let port: number;
    try {
      port = await connector.listen();
    } catch (err) {
      log.error({ err, session: session.id }, 'ftp passive port unavailable');
      return reply(connection, 425, 'No passive port free, try again later');
    }
    if (extended) return reply(connection, 229, `Entering Extended Passive Mode (|||${port}|)`);
    const local = normalizeAddress(connection.commandSocket.localAddress);
    const address = /^127\./.test(session.address) && /^\d+\.\d+\.\d+\.\d+$/.test(local) ? local : ctx.passive.address;
    return reply(connection, 227, `Entering Passive Mode (${pasvReply(address, port)})`);
  }

  return {
    PASV: () => passive(false),
    EPSV: () => passive(true),
    AUTH: async (cmd) => {
      const method = (cmd.arg ?? '').trim().toUpperCase();
      if (method !== 'TLS' || !ctx.secureContext || connection.secure) return pass(cmd);
      upgradeToTls();
    },
    USER: async (cmd) => {
      if (plaintextRefused(cmd)) return reply(connection, 530, TLS_REQUIRED);
      // ftp-srv keeps the name of a failed attempt and would refuse the next USER
      if (!connection.authenticated) delete connection.username;
      return pass(cmd);
    },
    PASS: async (cmd) => {
      if (plaintextRefused(cmd)) return reply(connection, 530, TLS_REQUIRED);
      return pass(cmd);
    },
    STOR: stor,
    APPE: notSupported('APPE is not supported: upload the whole file with STOR'),
    STOU: notSupported('STOU is not supported: upload <invoice_number>.pdf with STOR'),
    SITE: notSupported('SITE commands are not supported'),
    MKD: flatDirectory,
    XMKD: flatDirectory,
    RMD: flatDirectory,
    XRMD: flatDirectory,
    DELE: async (cmd) => {
      if (!loggedIn()) return notLoggedIn();
      try {
        await session.fs!.delete(cmd.arg ?? '');
        return reply(connection, 250, 'Temporary upload deleted');
      } catch (err) {
        return refuseFsError(err);
      }
    },
    RETR: async (cmd) => {
      if (!loggedIn()) return notLoggedIn();
      try {
        await session.fs!.readable(cmd.arg ?? '');
      } catch (err) {
        dropDataConnection();
        return refuseFsError(err);
      }
      return pass(cmd);
    },
    RNFR: async (cmd) => {
      if (!loggedIn()) return notLoggedIn();
      session.renameFrom = undefined;
      try {
        session.renameFrom = await session.fs!.checkRenameSource(cmd.arg ?? '');
        return reply(connection, 350, 'Ready for RNTO');
      } catch (err) {
        return refuseFsError(err);
      }
    },
    RNTO: async (cmd) => {
      if (!loggedIn()) return notLoggedIn();
      const from = session.renameFrom;
      session.renameFrom = undefined;
      if (!from) return reply(connection, 503, 'RNFR first');
      try {
        const result = await session.fs!.renameUpload(from, cmd.arg ?? '');
        metrics.inc(result.kind === 'held' ? 'tempUploadsHeld' : 'uploadsReceived');
        log.info({ session: session.id, from, to: cmd.arg, intakeId: result.kind === 'received' ? result.record.id : undefined }, 'ftp temporary upload renamed');
        return reply(connection, 250, describe(cmd.arg ?? '', result));
      } catch (err) {
        if (err instanceof FtpReplyError && err.code === 553) metrics.inc('uploadsRefusedName');
        return handOverFailed(err, cmd.arg ?? '');
      }
    },
    ABOR: async (cmd) => {
      const t = session.transfer;
      if (!t) return pass(cmd);
      t.abort.abort();
      await t.done;
      return reply(connection, 226, 'ABOR successful');
    },
    QUIT: async (cmd) => {
      session.transfer?.abort.abort();
      return pass(cmd);
    },
  };
}
