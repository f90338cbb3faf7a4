// The flat directory an FTP or SFTP session sees, over the intake pipeline, written once for both:
// final uploads go to the pipeline, temporary ones (WinSCP's `x.pdf.filepart`, lftp's `.in.x.pdf`,
// `x.tmp`: upload-names.ts) are held until renamed to a final name (held-uploads.ts: per account
// and mode, so a later session may rename them; in memory on the database store, as a stored
// object on another), and the listing is the account-and-mode's TRANSFER_LIST_LIMIT recent records
// with their `.error.txt` files (directory-listing.ts). A refusal says why (DirectoryRefusal);
// each protocol picks its reply code.
import type { TransferChannel } from '../../domain/channels.ts';
import { isArchiveName } from '../../domain/archive.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/document-facts.ts';
import type { Scope } from '../../domain/scope.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import type { IntakeReceiver, TakenUpload } from '../../intake/intake-port.ts';
import { buildListing, deleteVerdict, findEntry, type DirectoryEntry } from './directory-listing.ts';
import { heldSize, renameHeld, type HeldContent, type HeldUploads } from './held-uploads.ts';
import { classifyUploadName, clientBaseName, tooLargeText } from './upload-names.ts';

/**
 * Why a directory operation is refused: `bad-name` an upload name, `kept` a received file (not
 * deletable), `too-large` a held upload renamed to a final name whose cap it is over.
 */
export type RefusalReason = 'bad-name' | 'no-such-file' | 'already-received' | 'held-full' | 'unreadable' | 'kept' | 'too-large';

/** A refusal the protocol turns into its reply (FTP's code, SFTP's status); the message goes to the client. */
export class DirectoryRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export interface Uploader {
  scope: Scope;
  channel: TransferChannel;
  /** user@address, as the import record's sender */
  sender: string;
  traceId: string;
}

export interface TransferDirectoryDeps {
  receiver: IntakeReceiver;
  /** how many recent uploads the listing shows (TRANSFER_LIST_LIMIT) */
  listLimit: number;
  held: HeldUploads<HeldContent>;
  /** the cap of a final name other than an archive's (the channel's maxUploadBytes, 5 MB) */
  maxDocumentBytes?: number;
  onError(err: unknown): void;
}

export type Accepted = { kind: 'received'; record: ImportRecord } | { kind: 'held'; name: string };

export class TransferDirectory {
  constructor(
    readonly who: Uploader,
    private readonly deps: TransferDirectoryDeps,
  ) {}

  private get held(): HeldUploads<HeldContent> {
    return this.deps.held;
  }

  /** The base name an upload to `path` would get, or why it cannot be uploaded (checked before the bytes come). */
  uploadName(path: string): { name: string; temp: boolean } {
    const verdict = classifyUploadName(path);
    if (verdict.kind === 'refused') throw new DirectoryRefusal('bad-name', verdict.reason);
    if (verdict.kind === 'temp' && !this.canHold(verdict.name)) throw this.heldFull();
    return { name: verdict.name, temp: verdict.kind === 'temp' };
  }

  /** Whether another temporary upload under this name may start now. */
  canHold(name: string): boolean {
    return this.held.canHold(this.who.scope, name);
  }

  /**
   * An upload's bytes as they arrive, for accept(): an archive, and a temporary upload, into the
   * document store (the database store: into memory), anything else into memory.
   */
  takeUpload(path: string, body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<TakenUpload> {
    const verdict = classifyUploadName(path);
    if (verdict.kind === 'final') return this.deps.receiver.takeUpload(verdict.name, body, maxBytes);
    return this.deps.receiver.takeUpload(verdict.kind === 'temp' ? verdict.name : 'temporary upload', body, maxBytes, { temporary: true });
  }

  /** A complete upload: to the pipeline (resolves once staged and enqueued), or held until renamed. */
  async accept(path: string, upload: Buffer | TakenUpload): Promise<Accepted> {
    const { name, temp } = this.uploadName(path);
    const taken: TakenUpload = Buffer.isBuffer(upload) ? { kind: 'bytes', bytes: upload } : upload;
    if (temp) {
      // a stored one not held (the limit was reached meanwhile) is an unreferenced object, for the sweep
      const content: HeldContent = taken.kind === 'bytes' ? taken.bytes : { sha256: taken.sha256, size: taken.size };
      if (!this.held.hold(this.who.scope, name, content)) throw this.heldFull();
      return { kind: 'held', name };
    }
    const { scope, channel, sender, traceId } = this.who;
    const record = await this.deps.receiver.receiveUpload(
      { scope, channel, sender, filename: name, traceId, uploadKeyId: (scope as KeyScope).uploadKey?.id },
      taken,
    );
    return { kind: 'received', record };
  }

  /** What a rename may start from (FTP's RNFR): only a held temporary upload; returns its base name. */
  async renameSource(path: string): Promise<string> {
    const source = clientBaseName(path);
    if (!source.ok) throw new DirectoryRefusal('bad-name', source.reason);
    if (this.held.has(this.who.scope, source.name)) return source.name;
    throw await this.notRenamable(source.name);
  }

  /** Only a held temporary upload can be renamed; to a final name it goes to the pipeline. */
  async rename(from: string, to: string): Promise<Accepted> {
    const source = clientBaseName(from);
    if (!source.ok) throw new DirectoryRefusal('bad-name', source.reason);
    const target = classifyUploadName(to);
    if (target.kind === 'refused') throw new DirectoryRefusal('bad-name', target.reason);
    const renamed = await renameHeld(this.held, this.who.scope, source.name, { name: target.name, temp: target.kind === 'temp' }, (content) =>
      this.receive(target.name, content),
    );
    if (renamed) return renamed.kind === 'held' ? renamed : { kind: 'received', record: renamed.result };
    throw await this.notRenamable(source.name);
  }

  /**
   * A client may drop its own temporary upload (clients clean up after a failed transfer); a
   * received file is "about to be replaced" (deleteVerdict: WinSCP's replace sequence) and stays.
   * Returns what happened, for the reply and the log.
   */
  async remove(path: string): Promise<string> {
    const base = clientBaseName(path);
    if (!base.ok) throw new DirectoryRefusal('bad-name', base.reason);
    if (this.held.remove(this.who.scope, base.name)) return 'Temporary upload deleted';
    const verdict = deleteVerdict(base.name, await this.find(base.name));
    if (verdict.kind === 'refused') throw new DirectoryRefusal(verdict.reason === 'no-such-file' ? 'no-such-file' : 'kept', verdict.message);
    return verdict.message;
  }

  async entries(): Promise<DirectoryEntry[]> {
    let records: ImportRecord[];
    try {
      records = await this.deps.receiver.recent(this.who.scope, this.deps.listLimit);
    } catch (err) {
      // the client gets a transient refusal, not the database's error text
      this.deps.onError(err);
      throw new DirectoryRefusal('unreadable', 'The directory cannot be read right now, try again later');
    }
    return buildListing(records, this.held.list(this.who.scope));
  }

  async find(path: string): Promise<DirectoryEntry | undefined> {
    const base = clientBaseName(path);
    return base.ok ? findEntry(await this.entries(), base.name) : undefined;
  }

  private async notRenamable(name: string): Promise<DirectoryRefusal> {
    if (await this.find(name))
      return new DirectoryRefusal('already-received', `${name} was already handed to intake; upload the file again under the new name`);
    return new DirectoryRefusal('no-such-file', `No such file: ${name}`);
  }

  private heldFull(): DirectoryRefusal {
    return new DirectoryRefusal('held-full', `At most ${this.held.options.maxPerScope} temporary uploads can wait for their rename`);
  }

  /**
   * A held upload under its final name: a `.zip` name takes an archive's size; any other name a
   * document's, as a direct upload under it would (a larger one stays held, to be renamed to a
   * `.zip` name, deleted, or dropped). A stored one is received where it lies, an archive without
   * reading it back.
   */
  private receive(filename: string, content: HeldContent): Promise<ImportRecord> {
    const cap = this.deps.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
    if (!isArchiveName(filename) && heldSize(content) > cap) throw new DirectoryRefusal('too-large', tooLargeText(filename, cap));
    const { scope, channel, sender, traceId } = this.who;
    const file = { scope, channel, sender, filename, traceId, uploadKeyId: (scope as KeyScope).uploadKey?.id };
    if (Buffer.isBuffer(content)) return this.deps.receiver.receive({ ...file, bytes: content });
    return this.deps.receiver.receiveUpload(file, { kind: 'stored', ...content });
  }
}
