// The flat virtual directory an FTP session sees, as ftp-srv's FileSystem: the directory itself
// (uploads, temporary uploads held until RNTO, the listing, deletes) is SFTP's too
// (transfer-directory.ts); this file adds FTP's paths, patterns (NLST *.pdf), stats and reply codes.
import { Readable } from 'node:stream';
import { FileSystem, type FtpConnection } from 'ftp-srv';
import type { Scope } from '../../domain/scope.ts';
import type { TakenUpload } from '../../intake/intake-port.ts';
import type { DirectoryEntry } from '../transfer/directory-listing.ts';
import { isNamePattern, namePattern } from '../transfer/name-pattern.ts';
import { DirectoryRefusal, TransferDirectory, type Accepted, type RefusalReason, type TransferDirectoryDeps } from '../transfer/transfer-directory.ts';
import { clientBaseName, isRootPath } from '../transfer/upload-names.ts';

/** The directory's refusals (transfer-directory.ts) as FTP reply codes. */
const CODES: Record<RefusalReason, number> = {
  'bad-name': 553,
  'no-such-file': 550,
  'already-received': 550,
  kept: 550,
  'held-full': 452,
  unreadable: 451,
  'too-large': 552,
};

/** Runs a directory operation; its refusal becomes the FTP reply. */
async function replying<T>(op: () => T | Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw err instanceof DirectoryRefusal ? new FtpReplyError(CODES[err.reason], err.message) : err;
  }
}

/** A refusal with the FTP reply code to send. */
export class FtpReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SessionIdentity {
  scope: Scope;
  username: string;
  address: string;
  /** the FTP session id, carried into the pipeline's logs */
  traceId: string;
}

export type FileSystemOptions = TransferDirectoryDeps;

/** What ftp-srv's LIST/STAT/SIZE/MDTM read from a file: fs.Stats' shape, plus status and mode. */
export interface EntryStat {
  name: string;
  size: number;
  mtime: Date;
  mode: number;
  status?: string;
  /** the group column of the listing: the session's mode */
  group: string;
  isDirectory(): boolean;
}

export type ReceiveResult = Accepted;

export class IntakeFileSystem extends FileSystem {
  private readonly dir: TransferDirectory;

  constructor(
    connection: FtpConnection,
    readonly identity: SessionIdentity,
    opts: FileSystemOptions,
  ) {
    super(connection, { root: '/', cwd: '/' });
    const { scope, username, address, traceId } = identity;
    this.dir = new TransferDirectory({ scope, channel: 'ftp', sender: `${username}@${address}`, traceId }, opts);
  }

  override currentDirectory(): string {
    return '/';
  }

  override async chdir(path = '.'): Promise<string> {
    if (isRootPath(path) || path === '..' || path === '/..') return '/';
    throw new FtpReplyError(550, 'No such directory: the directory is flat');
  }

  override async get(name: string): Promise<EntryStat> {
    // a pattern (NLST *.pdf) is listed like the directory, filtered in list()
    if (isRootPath(name) || isNamePattern(name)) return this.stat({ name: '.', size: 0, mtime: new Date(), status: undefined }, true);
    const entry = await this.find(name);
    if (!entry) throw new FtpReplyError(550, `No such file: ${name}`);
    return this.stat(entry);
  }

  override async list(path = '.'): Promise<EntryStat[]> {
    if (isNamePattern(path)) {
      const pattern = namePattern(path);
      if (!pattern.ok) throw new FtpReplyError(550, pattern.reason);
      return (await this.entries()).filter((e) => pattern.matches(e.name)).map((e) => this.stat(e));
    }
    if (!isRootPath(path)) throw new FtpReplyError(550, 'No such directory: the directory is flat');
    return (await this.entries()).map((e) => this.stat(e));
  }

  /** Whether LIST/NLST may list this argument; refusals are permanent (ftp-srv would answer 451). */
  async listable(arg: string | null | undefined): Promise<void> {
    if (arg == null || isRootPath(arg)) return;
    if (isNamePattern(arg)) {
      const pattern = namePattern(arg);
      if (!pattern.ok) throw new FtpReplyError(550, pattern.reason);
      return;
    }
    await this.get(arg);
  }

  /** The entry a RETR may read, or why not. */
  async readable(name: string): Promise<DirectoryEntry> {
    const base = clientBaseName(name);
    if (!base.ok) throw new FtpReplyError(553, base.reason);
    const entry = await this.find(base.name);
    if (!entry) throw new FtpReplyError(550, `No such file: ${base.name}`);
    if (!entry.content) throw new FtpReplyError(550, 'Uploaded files cannot be downloaded; only the .error.txt files can');
    return entry;
  }

  override async read(name: string, { start }: { start?: number } = {}): Promise<{ stream: Readable; clientPath: string }> {
    const entry = await this.readable(name);
    const bytes = entry.content!.subarray(Math.min(start ?? 0, entry.content!.length));
    return { stream: Readable.from([bytes], { objectMode: false }), clientPath: entry.name };
  }

  override write(): never {
    throw new FtpReplyError(550, 'Uploads are handled by the STOR command');
  }

  /** Reads an upload's bytes as they stream in (transfer-directory.ts). */
  takeUpload(name: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<TakenUpload> {
    return this.dir.takeUpload(name, body, maxBytes);
  }

  /** Hands a final upload to the pipeline, or holds a temporary one until its rename. */
  receiveOrHold(name: string, upload: TakenUpload): Promise<ReceiveResult> {
    return replying(() => this.dir.accept(name, upload));
  }

  /** Whether another temporary upload under this name may start now. */
  canHold(name: string): boolean {
    return this.dir.canHold(name);
  }

  /** RNFR: only a held temporary upload can be renamed. */
  checkRenameSource(name: string): Promise<string> {
    return replying(() => this.dir.renameSource(name));
  }

  /** RNTO: a temporary upload becomes its final name and goes to the pipeline. */
  renameUpload(from: string, to: string): Promise<ReceiveResult> {
    return replying(() => this.dir.rename(from, to));
  }

  override async rename(from: string, to: string): Promise<void> {
    await this.renameUpload(from, to);
  }

  /** DELE: a client may drop its own temporary upload; a received file stays (transfer-directory.ts). Returns the reply text. */
  override delete(name: string): Promise<string> {
    return replying(() => this.dir.remove(name));
  }

  override async mkdir(): Promise<never> {
    throw new FtpReplyError(550, 'Permission denied: the directory is flat');
  }

  override async chmod(): Promise<never> {
    throw new FtpReplyError(502, 'Command not implemented');
  }

  override getUniqueName(): never {
    throw new FtpReplyError(502, 'Command not implemented');
  }

  private entries(): Promise<DirectoryEntry[]> {
    return replying(() => this.dir.entries());
  }

  private async find(name: string): Promise<DirectoryEntry | undefined> {
    const base = clientBaseName(name);
    if (!base.ok) return undefined;
    return replying(() => this.dir.find(base.name));
  }

  private stat(e: Pick<DirectoryEntry, 'name' | 'size' | 'mtime'> & { status?: string }, dir = false): EntryStat {
    return {
      name: e.name,
      size: e.size,
      mtime: e.mtime,
      mode: dir ? 0o40555 : e.status === 'uploading' ? 0o100644 : 0o100444,
      status: e.status,
      group: this.identity.scope.mode,
      isDirectory: () => dir,
    };
  }
}
