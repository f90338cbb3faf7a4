// STOR, taken over from ftp-srv, which pauses the control socket during a transfer (so it cannot
// see a client that dies mid-upload), acknowledges whatever arrived, and answers every failure
// with 550. Here the bytes stream to the intake as they arrive (an archive into the document
// store), the cap is enforced while streaming (552), a vanished client stages nothing, the file is
// handed to intake before the 226, and staging or store failures are a transient 451.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { dataConnectionReady, refuseTransfer, reportStall } from './data-connection-commands.ts';
import type { CommandContext } from './ftp-commands.ts';
import type { FtpSession } from './ftp-session.ts';
import type { ParsedCommand } from './ftp-srv-internals.ts';
import { FtpReplyError, type ReceiveResult } from './intake-file-system.ts';
import type { PassiveConnector } from './passive-connector.ts';
import { settleDelayMs } from './upload-completeness.ts';
import { classifyUploadName, tooLargeText, uploadCap } from '../transfer/upload-names.ts';
import { streamUpload } from './upload-transfer.ts';

/** How much of a file over the cap is read (and dropped) before its data connection is cut. */
const OVER_CAP_DISCARD_BYTES = 64 * 1024 * 1024;

/** The text of a 226 (or RNTO's 250): the import record, or that a temporary upload is held. */
export function describeReceived(name: string, r: ReceiveResult): string {
  return r.kind === 'held'
    ? `${r.name} held: rename it to its final .pdf name to hand it in`
    : `${name} received as ${r.record.id}, status ${r.record.status}${r.record.reason ? `: ${r.record.reason}` : ''}`;
}

/** A hand-over to intake that failed: refusals keep their code; anything else is transient (451). */
export function stagingFailed(session: FtpSession, ctx: CommandContext, err: unknown, name: string): Promise<unknown> {
  if (err instanceof FtpReplyError) return session.connection.reply(err.code, err.message);
  ctx.metrics.inc('uploadsStagingFailed');
  ctx.log.error({ err, session: session.id, name }, 'ftp upload could not be staged');
  return session.connection.reply(451, `${name} was not received (the intake is unavailable); please try again later`);
}

export async function storCommand(session: FtpSession, ctx: CommandContext, cmd: ParsedCommand): Promise<unknown> {
  const { connection } = session;
  const { metrics, log } = ctx;
  const fs = session.fs!;
  const refuse = (code: number, text: string) => refuseTransfer(session, code, text);
  const verdict = classifyUploadName(cmd.arg);
  if (verdict.kind === 'refused') {
    metrics.inc('uploadsRefusedName');
    log.info({ session: session.id, name: cmd.arg, reason: verdict.reason }, 'ftp upload name refused');
    return refuse(553, verdict.reason);
  }
  if (!session.binary) {
    // in ASCII mode the client has already changed the file's line ends (a 665-byte PDF arrives
    // as 699 bytes, damaged): no server-side conversion can undo that, so the upload is refused
    // before a byte is sent
    metrics.inc('uploadsRefusedAscii');
    log.info({ session: session.id, name: verdict.name }, 'ftp upload refused: ASCII mode');
    return refuse(
      550,
      `${verdict.name} was not received: use binary mode (TYPE I) for PDF and ZIP files; in ASCII mode (the FTP default) the client changes their line ends and damages them`,
    );
  }
  if (connection.takeRestOffset()) return refuse(554, 'Resuming uploads is not supported: upload the whole file');
  if (verdict.kind === 'temp' && !fs.canHold(verdict.name)) return refuse(452, 'Too many temporary uploads wait for their rename');
  if (!(await dataConnectionReady(session, ctx, 'STOR'))) return;
  const connector = connection.connector as PassiveConnector;
  let socket;
  try {
    socket = await connector.waitForConnection();
  } catch {
    return refuse(425, 'No data connection: the client did not connect to the passive port in time');
  }
  const abort = new AbortController();
  let finished!: () => void;
  session.transfer = { abort, done: new Promise<void>((r) => (finished = r)) };
  metrics.transferStarted();
  const name = verdict.name;
  try {
    // sent before the data connection's TLS handshake has ended: see passive-connector.ts
    await connection.reply(150, `Ready to receive ${name}`);
    const cap = uploadCap(name, { pdf: ctx.maxUploadBytes, archive: ctx.maxArchiveBytes });
    const outcome = await streamUpload(
      socket,
      {
        maxBytes: cap,
        stallMs: ctx.transferTimeoutMs,
        signal: abort.signal,
        // the rest of a file over the cap is read and dropped, so that the client finishes sending
        // and then reads the 552 (a reset mid-send loses it: curl, PHP, Java and ftplib showed only
        // the broken connection); a client still sending past the bound is cut off
        drainBytes: OVER_CAP_DISCARD_BYTES,
        onProgress: (n) => metrics.inc('bytesReceived', n),
      },
      (body) => fs.takeUpload(name, body, cap),
    );
    if (outcome.kind === 'too-large') {
      metrics.inc('uploadsRefusedTooLarge');
      log.info({ session: session.id, name, received: outcome.received }, 'ftp upload over the size cap refused');
      // sent once the client has sent everything, before the data connection is closed (finally)
      if (!session.closed) await connection.reply(552, tooLargeText(name, cap));
      return;
    }
    // the store could not take the bytes while they streamed: nothing is recorded (451)
    if (outcome.kind === 'failed') return stagingFailed(session, ctx, outcome.error, name);
    if (outcome.kind === 'aborted') {
      metrics.inc('uploadsAborted');
      if (outcome.reason === 'stalled' && connector.handshaking) connector.handshakeStalled();
      else if (outcome.reason === 'stalled') reportStall(session, ctx, 'after_150', ctx.transferTimeoutMs, 'STOR');
      log.info({ session: session.id, name, reason: outcome.reason, received: outcome.received }, 'ftp upload aborted; nothing received');
      if (!session.closed) await connection.reply(426, `Transfer aborted (${outcome.reason}): ${name} was not received`);
      return;
    }
    // the whole file is in: the data connection is ended now (close_notify, FIN), as a client that
    // waits for that before it goes on (ftplib's unwrap(), Ruby's read to EOF) expects; the
    // control connection is checked after that
    connection.dropDataConnection();
    // a complete file whose connection was reset instead of closed: received, once the control
    // connection has stayed up for the grace period (a killed client drops both)
    const { reset, size, upload } = outcome;
    if (reset) log.debug({ session: session.id, name, size }, 'ftp data connection reset after a complete file');
    // a client that died mid-upload closes its control connection too: see upload-completeness.ts
    // (an archive that streamed into the store and is not received stays there for the sweep)
    const wait = reset ? ctx.truncationGraceMs : settleDelayMs(outcome.ends, ctx.truncationGraceMs);
    await (wait > 0 ? sleep(wait) : nextTurn());
    if (session.closed || abort.signal.aborted) {
      metrics.inc('uploadsAborted');
      log.info({ session: session.id, name, size }, 'ftp client left before its upload was confirmed; nothing received');
      if (!session.closed) await connection.reply(426, `Transfer aborted: ${name} was not received`);
      return;
    }
    let result: ReceiveResult;
    try {
      result = await fs.receiveOrHold(name, upload);
    } catch (err) {
      return stagingFailed(session, ctx, err, name);
    }
    metrics.inc(result.kind === 'held' ? 'heldUploads' : 'uploadsReceived');
    log.info(
      { session: session.id, name, size, intakeId: result.kind === 'received' ? result.record.id : undefined, held: result.kind === 'held' },
      'ftp upload received',
    );
    return connection.reply(226, describeReceived(name, result));
  } finally {
    session.transfer = undefined;
    metrics.transferEnded();
    connection.dropDataConnection();
    session.idle.touch();
    finished();
  }
}
