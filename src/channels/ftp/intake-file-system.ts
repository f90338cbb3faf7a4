// The flat virtual directory an FTP session sees: nothing is stored on disk. Uploads go to the
// intake pipeline; listings come from the pipeline's recent records (directory-listing.ts).
//
// Temporary uploads (WinSCP's `x.pdf.filepart`, lftp's `.in.x.pdf`, `x.tmp`) are held in memory
// under their temporary name (held-uploads.ts: per account and mode, so a later session may
// rename them too) and handed to the pipeline under the final name when the client renames them
// (RNTO). Nothing is acknowledged to the pipeline before that.
import { Readable } from 'node:stream';
import { FileSystem, type FtpConnection } from 'ftp-srv';
import type { Scope } from '../../domain/scope.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import { buildListing, deleteVerdict, findEntry, type DirectoryEntry } from '../transfer/directory-listing.ts';
import { renameHeld, type HeldUploads } from '../transfer/held-uploads.ts';
import { isNamePattern, namePattern } from '../transfer/name-pattern.ts';
import { classifyUploadName, clientBaseName, isRootPath } from '../transfer/upload-names.ts';

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

export interface FileSystemOptions {
  receiver: IntakeReceiver;
  listLimit: number;
  held: HeldUploads;
  onError?: (err: unknown) => void;
}

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

export type ReceiveResult = { kind: 'received'; record: ImportRecord } | { kind: 'held'; name: string };

export class IntakeFileSystem extends FileSystem {
  constructor(
    connection: FtpConnection,
    readonly identity: SessionIdentity,
    private readonly opts: FileSystemOptions,
  ) {
    super(connection, { root: '/', cwd: '/' });
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

  /** Hands a final upload to the pipeline, or holds a temporary one until its rename. */
  async receiveOrHold(name: string, bytes: Buffer): Promise<ReceiveResult> {
    const verdict = classifyUploadName(name);
    if (verdict.kind === 'refused') throw new FtpReplyError(553, verdict.reason);
    if (verdict.kind === 'temp') {
      this.hold(verdict.name, bytes);
      return { kind: 'held', name: verdict.name };
    }
    return { kind: 'received', record: await this.receive(verdict.name, bytes) };
  }

  /** Whether another temporary upload under this name may start now. */
  canHold(name: string): boolean {
    return this.opts.held.canHold(this.identity.scope, name);
  }

  /** RNFR: only a held temporary upload can be renamed. */
  async checkRenameSource(name: string): Promise<string> {
    const base = clientBaseName(name);
    if (!base.ok) throw new FtpReplyError(553, base.reason);
    if (this.opts.held.has(this.identity.scope, base.name)) return base.name;
    if (await this.find(base.name)) {
      throw new FtpReplyError(550, `${base.name} was already handed to intake; upload the file again under the new name`);
    }
    throw new FtpReplyError(550, `No such file: ${base.name}`);
  }

  /** RNTO: a temporary upload becomes its final name and goes to the pipeline. */
  async renameUpload(from: string, to: string): Promise<ReceiveResult> {
    const verdict = classifyUploadName(to);
    if (verdict.kind === 'refused') throw new FtpReplyError(553, verdict.reason);
    const renamed = await renameHeld(this.opts.held, this.identity.scope, from, { name: verdict.name, temp: verdict.kind === 'temp' }, (bytes) => this.receive(verdict.name, bytes));
    if (!renamed) throw new FtpReplyError(550, `No such file: ${from}`);
    return renamed.kind === 'held' ? renamed : { kind: 'received', record: renamed.result };
  }

  override async rename(from: string, to: string): Promise<void> {
    await this.renameUpload(from, to);
  }

  /**
   * DELE: a client may drop its own temporary upload (clients clean up after a failed transfer);
   * a received file is "about to be replaced" (deleteVerdict) and stays. Returns the reply text.
   */
  override async delete(name: string): Promise<string> {
    const base = clientBaseName(name);
    if (!base.ok) throw new FtpReplyError(553, base.reason);
    if (this.opts.held.remove(this.identity.scope, base.name)) return 'Temporary upload deleted';
    const verdict = deleteVerdict(base.name, await this.find(base.name));
    if (verdict.kind === 'refused') throw new FtpReplyError(550, verdict.message);
    return verdict.message;
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

  private hold(name: string, bytes: Buffer) {
    if (!this.opts.held.hold(this.identity.scope, name, bytes)) {
      throw new FtpReplyError(452, `At most ${this.opts.held.options.maxPerScope} temporary uploads can wait for their rename`);
    }
  }

  private receive(filename: string, bytes: Buffer): Promise<ImportRecord> {
    const { scope, username, address, traceId } = this.identity;
    return this.opts.receiver.receive({ scope, channel: 'ftp', sender: `${username}@${address}`, filename, bytes, traceId, uploadKeyId: (scope as KeyScope).uploadKey?.id });
  }

  private async entries(): Promise<DirectoryEntry[]> {
    let records: ImportRecord[];
    try {
      records = await this.opts.receiver.recent(this.identity.scope, this.opts.listLimit);
    } catch (err) {
      // the client gets a transient code, not the database's error text
      this.opts.onError?.(err);
      throw new FtpReplyError(451, 'The directory cannot be read right now, try again later');
    }
    return buildListing(records, this.opts.held.list(this.identity.scope));
  }

  private async find(name: string): Promise<DirectoryEntry | undefined> {
    const base = clientBaseName(name);
    if (!base.ok) return undefined;
    return findEntry(await this.entries(), base.name);
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
