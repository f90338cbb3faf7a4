// The FTP commands this channel answers itself, in front of ftp-srv's dispatcher. ftp-srv keeps
// the rest (TYPE, LIST/NLST/SIZE/MDTM over the virtual file system, the transfer of a RETR, ...).
// Commands run one after the other, in the session's queue.
//
// Why each is taken over:
// - AUTH TLS: wrapped in the same turn as the 234 (see ControlConnection.upgradeToTls).
// - PBSZ/PROT: the session must know whether its data connections are protected (PROT P), and a
//   clear data connection (PROT C) is refused while TLS is required.
// - FEAT: ftp-srv's lists what its registry knows (TYPE A,I,L ...), not what this server does.
// - USER/PASS: refused before AUTH TLS when TLS is required (ftp-srv has no such rule).
// - STOR (upload-command.ts), PASV/EPSV/PORT/EPRT (data-connection-commands.ts).
// - RETR/LIST/NLST: checked for a (protected) passive connection first.
// - RNFR/RNTO/DELE/MKD/RMD/SITE/APPE/STOU: refused or answered with their proper codes.
// - ABOR/QUIT: abort a running upload.
import type { SecureContext } from 'node:tls';
import type { Logger } from '../../platform/logger.ts';
import { ACTIVE_MODE_REFUSED, dataConnectionReady, openPassive, refuseTransfer } from './data-connection-commands.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import type { FtpSession } from './ftp-session.ts';
import type { ParsedCommand } from './ftp-srv-internals.ts';
import { FtpReplyError } from './intake-file-system.ts';
import type { PortRange } from './passive-connector.ts';
import { describeReceived, stagingFailed, storCommand } from './upload-command.ts';

export interface CommandContext {
  /** the FTPS certificate's context (TLS 1.2 minimum); none: AUTH TLS is refused */
  secureContext?: SecureContext;
  requireTls: boolean;
  maxUploadBytes: number;
  /** the cap for ZIP archives (ZIP_MAX_TOTAL_BYTES) */
  maxArchiveBytes: number;
  transferTimeoutMs: number;
  /** wait for a disconnect this long before staging an upload that does not end like a PDF */
  truncationGraceMs: number;
  metrics: TransferMetrics;
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

/** The 530 for a login without TLS: the words a person finds in their client's settings. */
export const TLS_REQUIRED_TEXT =
  'TLS required: in your FTP client choose "FTP over TLS (explicit)", also called FTPES or "Require explicit FTP over TLS", and connect again; the password is an API key and is never sent unencrypted';

/** Commands that must be answered while an upload runs instead of waiting behind it. */
const URGENT = new Set(['ABOR', 'QUIT', 'NOOP', 'STAT']);

/** Commands that read or hand in files: each checks again that the session's key is still valid. */
const KEY_CHECKED = new Set(['STOR', 'RETR', 'LIST', 'NLST', 'SIZE', 'MDTM', 'RNFR', 'RNTO', 'DELE']);

/** What FEAT lists: only what this server does (no MLSD/MLST, no REST STREAM: uploads are whole). */
function features(tls: boolean): string[] {
  return [...(tls ? ['AUTH TLS', 'PBSZ', 'PROT'] : []), 'EPSV', 'MDTM', 'PASV', 'SIZE', 'UTF8'];
}

export function installCommands(session: FtpSession, ctx: CommandContext): void {
  const connection = session.connection;
  const delegate = connection.interceptCommands((cmd) => {
    session.idle.touch();
    const run = async () => {
      if (KEY_CHECKED.has(cmd.directive) && connection.authenticated && session.scope && !(await ctx.keyStillValid(session))) {
        ctx.log.info({ session: session.id, accountId: session.scope.accountId, mode: session.scope.mode }, 'ftp session closed: its key was rotated');
        connection.socket.end('530 The key was replaced: log in again with the new key\r\n');
        return;
      }
      return (answeredHere[cmd.directive] ?? delegate)(cmd);
    };
    const unexpected = (err: unknown) => {
      ctx.log.error({ err, session: session.id, directive: cmd.directive }, 'ftp command failed');
      return connection.reply(451, 'Local error in processing');
    };
    if (session.transfer && URGENT.has(cmd.directive)) return run().catch(unexpected);
    const next = session.queue.then(run).catch(unexpected);
    session.queue = next;
    return next;
  });
  const answeredHere = handlers(session, ctx, delegate);
}

function handlers(session: FtpSession, ctx: CommandContext, delegate: (cmd: ParsedCommand) => Promise<unknown>): Record<string, Handler> {
  const { connection } = session;
  const { metrics, log } = ctx;
  const reply = (code: number, text: string) => connection.reply(code, text);
  const loggedIn = () => Boolean(connection.authenticated && session.fs);
  const refuseFsError = (err: unknown) => {
    if (err instanceof FtpReplyError) return reply(err.code, err.message);
    throw err;
  };
  /** runs `fn` only for a logged-in session */
  const authed =
    (fn: Handler): Handler =>
    (cmd) =>
      loggedIn() ? fn(cmd) : reply(530, 'Not logged in');
  const refusal = (code: number, text: string) => authed(() => reply(code, text));
  /** a transfer command that ftp-srv runs once the data connection is there */
  const transfer = (fn: Handler = delegate): Handler => authed(async (cmd) => ((await dataConnectionReady(session, ctx, cmd.directive)) ? fn(cmd) : undefined));

  /** ftp-srv's transfer, after `check` (a refusal gets its own code, not ftp-srv's 451) */
  const checkedFirst =
    (check: (cmd: ParsedCommand) => Promise<unknown>): Handler =>
    async (cmd) => {
      try {
        await check(cmd);
      } catch (err) {
        if (err instanceof FtpReplyError) return refuseTransfer(session, err.code, err.message);
        connection.dropDataConnection();
        throw err;
      }
      return delegate(cmd);
    };

  const plaintextRefused = (cmd: ParsedCommand) => {
    if (!ctx.requireTls || connection.secure) return false;
    metrics.inc('loginsRefusedPlaintext');
    log.info({ session: session.id, address: session.address, directive: cmd.directive }, 'ftp login refused before AUTH TLS');
    return true;
  };
  const TLS_REQUIRED = TLS_REQUIRED_TEXT;
  const flatDirectory = refusal(550, 'Permission denied: the directory is flat');
  const activeMode = refusal(502, ACTIVE_MODE_REFUSED);

  return {
    PASV: authed(() => openPassive(session, ctx, false)),
    EPSV: authed(() => openPassive(session, ctx, true)),
    PORT: activeMode,
    EPRT: activeMode,
    AUTH: async (cmd) => {
      const method = (cmd.arg ?? '').trim().toUpperCase();
      if (method !== 'TLS') return reply(504, 'Only AUTH TLS is supported');
      if (!ctx.secureContext) return reply(502, 'TLS is not configured on this server');
      if (connection.secure) return reply(503, 'The connection is already secure');
      connection.upgradeToTls(ctx.secureContext);
    },
    PBSZ: async () => {
      if (!connection.secure) return reply(503, 'Send AUTH TLS first');
      return reply(200, 'PBSZ=0');
    },
    PROT: async (cmd) => {
      if (!connection.secure) return reply(503, 'Send AUTH TLS first');
      // RFC 4217 wants PBSZ first, but its only value is 0: Commons Net's execPROT("P") alone
      // is taken as PBSZ 0 + PROT P
      const level = (cmd.arg ?? '').trim().toUpperCase();
      if (level === 'P') {
        session.protectData = true;
        return reply(200, 'Data connections are encrypted');
      }
      if (level !== 'C') return reply(level === 'S' || level === 'E' ? 536 : 504, 'Only PROT P is supported');
      if (ctx.requireTls) return reply(534, 'Clear data connections are refused: TLS is required (PROT P)');
      session.protectData = false;
      return reply(200, 'Data connections are in clear');
    },
    FEAT: async () => {
      const lines = features(Boolean(ctx.secureContext)).map((f) => ` ${f}`);
      connection.socket.write(['211-Extensions supported', ...lines, '211 End', ''].join('\r\n'));
    },
    USER: async (cmd) => {
      if (plaintextRefused(cmd)) return reply(530, TLS_REQUIRED);
      connection.forgetFailedUser();
      return delegate(cmd);
    },
    PASS: async (cmd) => {
      if (plaintextRefused(cmd)) return reply(530, TLS_REQUIRED);
      return delegate(cmd);
    },
    TYPE: async (cmd) => {
      const type = (cmd.arg ?? '').trim().toUpperCase();
      if (/^(I|L ?8?)$/.test(type)) session.binary = true;
      else if (/^A( N)?$/.test(type)) session.binary = false;
      return delegate(cmd);
    },
    STOR: authed((cmd) => storCommand(session, ctx, cmd)),
    LIST: transfer(checkedFirst((cmd) => session.fs!.listable(cmd.arg))),
    NLST: transfer(checkedFirst((cmd) => session.fs!.listable(cmd.arg))),
    RETR: transfer(checkedFirst((cmd) => session.fs!.readable(cmd.arg ?? ''))),
    APPE: refusal(502, 'APPE is not supported: upload the whole file with STOR'),
    STOU: refusal(502, 'STOU is not supported: upload <invoice_number>.pdf with STOR'),
    SITE: refusal(502, 'SITE commands are not supported'),
    MKD: flatDirectory,
    XMKD: flatDirectory,
    RMD: flatDirectory,
    XRMD: flatDirectory,
    DELE: authed(async (cmd) => {
      try {
        const text = await session.fs!.delete(cmd.arg ?? '');
        log.info({ session: session.id, name: cmd.arg }, `ftp delete: ${text}`);
        return reply(250, text);
      } catch (err) {
        return refuseFsError(err);
      }
    }),
    RNFR: authed(async (cmd) => {
      session.renameFrom = undefined;
      try {
        session.renameFrom = await session.fs!.checkRenameSource(cmd.arg ?? '');
        return reply(350, 'Ready for RNTO');
      } catch (err) {
        return refuseFsError(err);
      }
    }),
    RNTO: authed(async (cmd) => {
      const from = session.renameFrom;
      session.renameFrom = undefined;
      if (!from) return reply(503, 'RNFR first');
      const to = cmd.arg ?? '';
      try {
        const result = await session.fs!.renameUpload(from, to);
        metrics.inc(result.kind === 'held' ? 'heldUploads' : 'uploadsReceived');
        log.info({ session: session.id, from, to, intakeId: result.kind === 'received' ? result.record.id : undefined }, 'ftp temporary upload renamed');
        return reply(250, describeReceived(to, result));
      } catch (err) {
        if (err instanceof FtpReplyError && err.code === 553) metrics.inc('uploadsRefusedName');
        return stagingFailed(session, ctx, err, to);
      }
    }),
    ABOR: async (cmd) => {
      const running = session.transfer;
      if (!running) return delegate(cmd);
      running.abort.abort();
      await running.done;
      return reply(226, 'ABOR successful');
    },
    QUIT: async (cmd) => {
      session.transfer?.abort.abort();
      return delegate(cmd);
    },
  };
}
