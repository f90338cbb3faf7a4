// The flat directory one SFTP session sees, over the intake pipeline: final uploads go to the
// pipeline, temporary ones (WinSCP's `x.pdf.filepart`, `x.tmp`) are held in memory until renamed
// to a final name (held-uploads.ts: per account and mode, so a later session may rename them), and
// the listing is the account-and-mode's recent records with their `.error.txt` files
// (directory-listing.ts, shared with FTP). Nothing is stored on disk.
import type { Scope } from '../../domain/scope.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import type { IntakeReceiver } from '../../intake/intake-port.ts';
import { buildListing, deleteVerdict, findEntry, type DirectoryEntry } from '../transfer/directory-listing.ts';
import { renameHeld, type HeldUploads } from '../transfer/held-uploads.ts';
import { classifyUploadName, clientBaseName } from '../transfer/upload-names.ts';

/** A refusal the SFTP layer turns into a status code: the message goes to the client. */
export class Refused extends Error {
  constructor(
    readonly kind: 'permission' | 'no-such-file' | 'failure',
    message: string,
  ) {
    super(message);
  }
}

export interface Uploader {
  scope: Scope;
  /** user@address, as the intake record's sender */
  sender: string;
  traceId: string;
}

export type Accepted = { kind: 'received'; record: ImportRecord } | { kind: 'held'; name: string };

export class UploadDirectory {
  constructor(
    readonly who: Uploader,
    private readonly deps: { receiver: IntakeReceiver; listLimit: number; held: HeldUploads; onError(err: unknown): void },
  ) {}

  private get held(): HeldUploads {
    return this.deps.held;
  }

  /** The base name an upload to `path` would get, or why it cannot be uploaded (checked at open). */
  uploadName(path: string): { name: string; temp: boolean } {
    const verdict = classifyUploadName(path);
    if (verdict.kind === 'refused') throw new Refused('permission', verdict.reason);
    if (verdict.kind === 'temp' && !this.held.canHold(this.who.scope, verdict.name)) throw this.heldFull();
    return { name: verdict.name, temp: verdict.kind === 'temp' };
  }

  /** A complete upload: to the pipeline (resolves once staged and enqueued), or held until renamed. */
  async accept(path: string, bytes: Buffer): Promise<Accepted> {
    const { name, temp } = this.uploadName(path);
    if (temp) {
      if (!this.held.hold(this.who.scope, name, bytes)) throw this.heldFull();
      return { kind: 'held', name };
    }
    return { kind: 'received', record: await this.receive(name, bytes) };
  }

  /** Only a held temporary upload can be renamed; to a final name it goes to the pipeline. */
  async rename(from: string, to: string): Promise<Accepted> {
    const source = clientBaseName(from);
    if (!source.ok) throw new Refused('permission', source.reason);
    const target = classifyUploadName(to);
    if (target.kind === 'refused') throw new Refused('permission', target.reason);
    const renamed = await renameHeld(this.held, this.who.scope, source.name, { name: target.name, temp: target.kind === 'temp' }, (bytes) => this.receive(target.name, bytes));
    if (renamed) return renamed.kind === 'held' ? renamed : { kind: 'received', record: renamed.result };
    if (await this.find(source.name)) throw new Refused('permission', `${source.name} was already handed to intake; upload the file again under the new name`);
    throw new Refused('no-such-file', `No such file: ${source.name}`);
  }

  /**
   * A client may drop its own temporary upload; a received file is "about to be replaced"
   * (deleteVerdict: WinSCP's replace sequence) and stays. Returns what happened, for the log.
   */
  async remove(path: string): Promise<string> {
    const base = clientBaseName(path);
    if (!base.ok) throw new Refused('permission', base.reason);
    if (this.held.remove(this.who.scope, base.name)) return 'Temporary upload deleted';
    const verdict = deleteVerdict(base.name, await this.find(base.name));
    if (verdict.kind === 'refused') throw new Refused(verdict.reason, verdict.message);
    return verdict.message;
  }

  async entries(): Promise<DirectoryEntry[]> {
    let records: ImportRecord[];
    try {
      records = await this.deps.receiver.recent(this.who.scope, this.deps.listLimit);
    } catch (err) {
      this.deps.onError(err);
      throw new Refused('failure', 'The directory cannot be read right now, try again later');
    }
    return buildListing(records, this.held.list(this.who.scope));
  }

  async find(path: string): Promise<DirectoryEntry | undefined> {
    const base = clientBaseName(path);
    return base.ok ? findEntry(await this.entries(), base.name) : undefined;
  }

  private heldFull(): Refused {
    return new Refused('failure', `At most ${this.held.options.maxPerScope} temporary uploads can wait for their rename`);
  }

  private receive(filename: string, bytes: Buffer): Promise<ImportRecord> {
    const { scope, sender, traceId } = this.who;
    return this.deps.receiver.receive({ scope, channel: 'sftp', sender, filename, bytes, traceId, uploadKeyId: (scope as KeyScope).uploadKey?.id });
  }
}
