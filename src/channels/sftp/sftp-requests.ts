// The SFTP requests of one logged-in session over its flat directory: uploads (open, write,
// close; also under a temporary name, then rename), the listing with each upload's status, the
// `.error.txt` files to read, and refusals for everything else (no mkdir, no delete of received
// files, no links, no path outside the root). An upload's writes stream on as they arrive
// (sftp-uploads.ts); its close is answered OK only once the file is staged and enqueued.
import ssh2, { type Attributes, type SFTPWrapper } from 'ssh2';
import type { Logger } from '../../platform/logger.ts';
import type { TransferMetrics } from '../transfer/transfer-metrics.ts';
import { lsLine, type DirectoryEntry } from '../transfer/directory-listing.ts';
import { isRootPath, clientBaseName, uploadCap } from '../transfer/upload-names.ts';
import type { SftpSession } from './sftp-session.ts';
import { openUpload, refusalText, STORE_FAILED_TEXT } from './sftp-uploads.ts';
import { sendStderr } from './ssh2-adapter.ts';
import { DirectoryRefusal, type RefusalReason } from '../transfer/transfer-directory.ts';

const { STATUS_CODE: S, OPEN_MODE } = ssh2.utils.sftp;

export interface RequestContext {
  maxUploadBytes: number;
  /** the cap for ZIP archives (ZIP_MAX_TOTAL_BYTES) */
  maxArchiveBytes: number;
  /** open uploads one session may hold at once (each up to maxUploadBytes in memory) */
  maxOpenUploads: number;
  metrics: TransferMetrics;
  log: Logger;
  /** whether the session's login still holds (API key not rotated, SSH key not removed) */
  stillValid(session: SftpSession): Promise<boolean>;
  /** ends the connection of a session whose login no longer holds */
  expel(session: SftpSession): void;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const ROOT_ATTRS = (): Attributes => ({ mode: 0o40555, uid: 0, gid: 0, size: 0, atime: seconds(new Date()), mtime: seconds(new Date()) });
const attrsOf = (e: DirectoryEntry): Attributes => ({
  mode: e.status === 'uploading' ? 0o100644 : 0o100444,
  uid: 0,
  gid: 0,
  size: e.size,
  atime: seconds(e.mtime),
  mtime: seconds(e.mtime),
});
const CODES = { permission: S.PERMISSION_DENIED, 'no-such-file': S.NO_SUCH_FILE, failure: S.FAILURE };
/** The directory's refusals (transfer-directory.ts) as SFTP statuses. */
const REFUSALS: Record<RefusalReason, number> = {
  'bad-name': S.PERMISSION_DENIED,
  'already-received': S.PERMISSION_DENIED,
  kept: S.PERMISSION_DENIED,
  'no-such-file': S.NO_SUCH_FILE,
  'held-full': S.FAILURE,
  unreadable: S.FAILURE,
  'too-large': S.FAILURE,
};

/** A refusal of this file's own: the message goes to the client. */
class Refused extends Error {
  constructor(
    readonly kind: keyof typeof CODES,
    message: string,
  ) {
    super(message);
  }
}

/** `a/b` style names and `..` never reach the directory: `/x.pdf`, `./x.pdf` and `x.pdf` are the root's x.pdf. */
function realPath(path: string): string {
  if (isRootPath(path) || path === '..' || path === '/..') return '/';
  const base = clientBaseName(path);
  return base.ok ? `/${base.name}` : '/';
}

/** The strings of an EXTENDED request's data (posix-rename@openssh.com: old path, new path). */
function extendedStrings(data: Buffer, n: number): string[] | undefined {
  const out: string[] = [];
  let pos = 0;
  for (let i = 0; i < n; i++) {
    if (pos + 4 > data.length) return undefined;
    const len = data.readUInt32BE(pos);
    if (pos + 4 + len > data.length) return undefined;
    out.push(data.toString('utf8', pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return out;
}

export function serveRequests(sftp: SFTPWrapper, session: SftpSession, ctx: RequestContext): void {
  const dir = session.dir!;
  const { metrics, log } = ctx;
  const fail = (id: number, err: unknown) => {
    if (err instanceof Refused) return sftp.status(id, CODES[err.kind], err.message);
    if (err instanceof DirectoryRefusal) {
      // OpenSSH's sftp shows only the status's code: the reason a held upload is over its cap, on stderr
      if (err.reason === 'too-large') sendStderr(sftp, err.message);
      return sftp.status(id, REFUSALS[err.reason], err.message);
    }
    log.error({ err, session: session.id }, 'sftp request failed');
    sftp.status(id, S.FAILURE, 'Internal error, try again later');
  };
  /** Runs a request; `checked` ones first confirm that the login still holds. */
  // biome-ignore lint/suspicious/noExplicitAny: ssh2's SFTP events each have their own argument list
  const on = (event: string, checked: boolean, fn: (id: number, ...args: any[]) => unknown) => {
    sftp.on(event, (id: number, ...args: unknown[]) => {
      session.idle.touch();
      const run = async () => {
        if (checked && !(await ctx.stillValid(session))) {
          sftp.status(id, S.PERMISSION_DENIED, 'The key was replaced or removed, or the account disabled: log in again');
          return ctx.expel(session);
        }
        await fn(id, ...args);
      };
      run().catch((err) => fail(id, err));
    });
  };
  const handleOf = (raw: Buffer) => session.handles.get(raw.toString('hex'));
  const entryAttrs = async (id: number, path: string) => {
    if (realPath(path) === '/') return sftp.attrs(id, ROOT_ATTRS());
    const entry = await dir.find(path);
    if (!entry) return sftp.status(id, S.NO_SUCH_FILE, `No such file: ${path}`);
    sftp.attrs(id, attrsOf(entry));
  };

  on('REALPATH', false, (id, path: string) => sftp.name(id, [{ filename: realPath(path), longname: '', attrs: {} as Attributes }]));
  on('STAT', false, entryAttrs);
  on('LSTAT', false, entryAttrs);

  on('OPENDIR', true, (id, path: string) => {
    if (realPath(path) !== '/') return sftp.status(id, S.NO_SUCH_FILE, 'No such directory: the directory is flat');
    sftp.handle(id, session.open({ kind: 'dir', listed: false }));
  });
  on('READDIR', false, async (id, raw: Buffer) => {
    const handle = handleOf(raw);
    if (handle?.kind !== 'dir') return sftp.status(id, S.FAILURE, 'Invalid handle');
    if (handle.listed) return sftp.status(id, S.EOF);
    handle.listed = true;
    const mode = session.login!.scope.mode;
    const now = new Date();
    const names = (await dir.entries()).map((e) => ({ filename: e.name, longname: lsLine(e, mode, now), attrs: attrsOf(e) }));
    sftp.name(id, [{ filename: '.', longname: lsLine({ name: '.', size: 0, mtime: now, isDirectory: () => true }, mode, now), attrs: ROOT_ATTRS() }, ...names]);
  });

  on('OPEN', true, async (id, path: string, flags: number) => {
    if (flags & OPEN_MODE.WRITE) {
      let name: string;
      try {
        ({ name } = dir.uploadName(path));
      } catch (err) {
        if (err instanceof DirectoryRefusal && err.reason === 'bad-name') metrics.inc('uploadsRefusedName');
        throw err;
      }
      const uploads = [...session.handles.values()].filter((handle) => handle.kind === 'upload').length;
      if (uploads >= ctx.maxOpenUploads) throw new Refused('failure', `At most ${ctx.maxOpenUploads} uploads at once per connection`);
      metrics.transferStarted();
      return sftp.handle(id, session.open(openUpload(dir, name, uploadCap(name, { pdf: ctx.maxUploadBytes, archive: ctx.maxArchiveBytes }))));
    }
    const entry = await dir.find(path);
    if (!entry) throw new Refused('no-such-file', `No such file: ${path}`);
    if (!entry.content) throw new Refused('permission', 'Uploaded files cannot be downloaded; only the .error.txt files can');
    sftp.handle(id, session.open({ kind: 'read', entry }));
  });

  // answered once the bytes were taken (by the store, or into memory): a slow store holds the
  // replies back, and clients wait for them before sending more
  on('WRITE', false, async (id, raw: Buffer, offset: number, data: Buffer) => {
    const handle = handleOf(raw);
    if (handle?.kind !== 'upload') return sftp.status(id, S.FAILURE, 'Invalid handle');
    metrics.inc('bytesReceived', data.length);
    const { writes } = handle;
    const wasRefused = writes.refusal !== undefined;
    const written = writes.write(offset, data);
    if (written.ok) {
      const taken = await written.taken.then(
        () => true,
        () => false,
      );
      if (session.closed) return;
      if (taken) return sftp.status(id, S.OK);
      return sftp.status(id, S.FAILURE, writes.refusal ? refusalText(handle, writes.refusal) : STORE_FAILED_TEXT);
    }
    const text = refusalText(handle, written.refusal);
    if (!wasRefused && written.refusal !== 'failed') {
      if (written.refusal === 'too-large') metrics.inc('uploadsRefusedTooLarge');
      log.info({ session: session.id, name: handle.path, limit: writes.maxBytes, offset, refusal: written.refusal }, `sftp upload refused: ${written.refusal}`);
      sendStderr(sftp, text);
    }
    sftp.status(id, S.FAILURE, text);
  });

  on('READ', false, (id, raw: Buffer, offset: number, len: number) => {
    const handle = handleOf(raw);
    if (handle?.kind !== 'read') return sftp.status(id, S.FAILURE, 'Invalid handle');
    const content = handle.entry.content!;
    if (offset >= content.length) return sftp.status(id, S.EOF);
    sftp.data(id, content.subarray(offset, Math.min(content.length, offset + len)));
  });

  on('FSTAT', false, (id, raw: Buffer) => {
    const handle = handleOf(raw);
    if (!handle) return sftp.status(id, S.FAILURE, 'Invalid handle');
    if (handle.kind === 'dir') return sftp.attrs(id, ROOT_ATTRS());
    if (handle.kind === 'read') return sftp.attrs(id, attrsOf(handle.entry));
    sftp.attrs(id, attrsOf({ name: handle.path, size: handle.writes.size, mtime: new Date(), status: 'uploading' }));
  });

  // times and permissions that clients set after an upload (scp -p, rclone) are accepted and ignored
  on('FSETSTAT', false, (id) => sftp.status(id, S.OK));
  on('SETSTAT', false, async (id, path: string) => {
    if (realPath(path) === '/' || (await dir.find(path))) return sftp.status(id, S.OK);
    sftp.status(id, S.NO_SUCH_FILE, `No such file: ${path}`);
  });

  on('CLOSE', false, async (id, raw: Buffer) => {
    const key = raw.toString('hex');
    const handle = session.handles.get(key);
    if (!handle) return sftp.status(id, S.FAILURE, 'Invalid handle');
    session.handles.delete(key);
    if (handle.kind !== 'upload') return sftp.status(id, S.OK);
    metrics.transferEnded();
    const { writes } = handle;
    if (writes.refusal) return sftp.status(id, S.FAILURE, refusalText(handle, writes.refusal));
    writes.end();
    session.closing++;
    try {
      // the bytes taken in (an archive in the store by now); a store that failed is caught below
      const upload = await handle.taken;
      // the key may have been rotated while the file streamed: nothing is handed in with it then
      if (!(await ctx.stillValid(session))) {
        metrics.inc('uploadsAborted');
        sftp.status(id, S.PERMISSION_DENIED, 'The key was replaced or removed, or the account disabled: nothing was received, log in again');
        return ctx.expel(session);
      }
      const accepted = await dir.accept(handle.path, upload);
      if (accepted.kind === 'held') {
        metrics.inc('heldUploads');
        return sftp.status(id, S.OK, `Held as ${accepted.name} until renamed to its .pdf name`);
      }
      metrics.inc('uploadsReceived');
      const r = accepted.record;
      log.info({ session: session.id, intakeId: r.id, name: r.filename, size: r.size, status: r.status }, 'sftp upload received');
      sftp.status(id, S.OK, `Received as ${r.id}`);
    } catch (err) {
      if (!(err instanceof DirectoryRefusal)) {
        metrics.inc('uploadsStagingFailed');
        log.error({ err, session: session.id, name: handle.path }, 'sftp upload could not be staged: not acknowledged');
        return sftp.status(id, S.FAILURE, STORE_FAILED_TEXT);
      }
      throw err;
    } finally {
      session.closing--;
    }
  });

  const rename = async (id: number, from: string, to: string) => {
    const accepted = await dir.rename(from, to);
    if (accepted.kind === 'received') {
      metrics.inc('uploadsReceived');
      log.info({ session: session.id, intakeId: accepted.record.id, name: accepted.record.filename }, 'sftp upload received (renamed)');
    }
    sftp.status(id, S.OK);
  };
  on('RENAME', true, rename);
  on('EXTENDED', false, async (id, name: string, data: Buffer) => {
    const paths = name === 'posix-rename@openssh.com' ? extendedStrings(data, 2) : undefined;
    if (!paths) return sftp.status(id, S.OP_UNSUPPORTED, `${name} is not supported`);
    if (!(await ctx.stillValid(session))) return ctx.expel(session);
    await rename(id, paths[0], paths[1]);
  });
  on('REMOVE', false, async (id, path: string) => {
    const text = await dir.remove(path);
    log.info({ session: session.id, name: path }, `sftp delete: ${text}`);
    sftp.status(id, S.OK, text);
  });
  on('MKDIR', false, (id) => sftp.status(id, S.PERMISSION_DENIED, 'Permission denied: the directory is flat'));
  on('RMDIR', false, (id) => sftp.status(id, S.PERMISSION_DENIED, 'Permission denied: the directory is flat'));
  on('SYMLINK', false, (id) => sftp.status(id, S.PERMISSION_DENIED, 'Links are not supported'));
  on('READLINK', false, (id) => sftp.status(id, S.NO_SUCH_FILE, 'Links are not supported'));
}
