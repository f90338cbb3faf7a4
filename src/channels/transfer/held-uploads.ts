// Temporary uploads (WinSCP's `x.pdf.filepart`, `x.pdf.part`, lftp's `.in.x.pdf`) waiting for
// their rename to the final `.pdf` name, held per account and mode rather than per session:
// rclone runs every command in a session of its own (`copyto` a temporary name, then `moveto`),
// and so do scripts that call curl once per step. On the database store the bytes are held in
// this node's memory; on another store the upload streamed into it and only its object's SHA-256
// and size are held here (taken-upload.ts). Nothing reaches the pipeline before the rename; an
// upload never renamed is dropped `holdMs` after it was held (a stored one is then an
// unreferenced object, for the sweep).
import type { Scope } from '../../domain/scope.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PendingUpload } from './directory-listing.ts';
import type { TransferChannel } from '../../domain/channels.ts';

/** A held upload's bytes, or (stores other than the database) the object they streamed into. */
export type HeldContent = Buffer | { sha256: string; size: number };

export const heldSize = (c: HeldContent): number => (Buffer.isBuffer(c) ? c.length : c.size);

export interface HeldUpload<C extends HeldContent = HeldContent> {
  content: C;
  at: Date;
}

interface Entry<C extends HeldContent> extends HeldUpload<C> {
  timer: NodeJS.Timeout;
}

export interface HeldUploadsOptions {
  /** temporary uploads one account-and-mode may have waiting at once (each up to the size cap) */
  maxPerScope: number;
  /** how long one waits for its rename */
  holdMs: number;
  onExpired?: (scope: Scope, name: string) => void;
}

const keyOf = (scope: Scope) => `${scope.accountId}:${scope.mode}`;

/** `C`: what is held, bytes only (the default) or bytes or a stored object (the servers'). */
export class HeldUploads<C extends HeldContent = Buffer> {
  private readonly scopes = new Map<string, Map<string, Entry<C>>>();

  constructor(readonly options: HeldUploadsOptions) {}

  /** An FTP or SFTP server's: four per account and mode unless set; a dropped one is logged. */
  static forServer(channel: TransferChannel, options: { maxHeldPerAccount?: number; tempUploadHoldMs: number }, log: Logger): HeldUploads<HeldContent> {
    return new HeldUploads<HeldContent>({
      maxPerScope: options.maxHeldPerAccount ?? 4,
      holdMs: options.tempUploadHoldMs,
      onExpired: (scope, name) => log.info({ ...scope, name }, `${channel} temporary upload never renamed: dropped`),
    });
  }

  /** Whether an upload under this temporary name may be held (a new name counts against the limit). */
  canHold(scope: Scope, name: string): boolean {
    const held = this.scopes.get(keyOf(scope));
    return !held || held.has(name) || held.size < this.options.maxPerScope;
  }

  /** Holds an upload (replacing one of the same name); false when the scope's limit is reached. */
  hold(scope: Scope, name: string, content: C, at = new Date(), overLimit = false): boolean {
    if (!overLimit && !this.canHold(scope, name)) return false;
    this.remove(scope, name);
    const key = keyOf(scope);
    const held = this.scopes.get(key) ?? new Map<string, Entry<C>>();
    const timer = setTimeout(() => {
      if (held.get(name)?.timer !== timer) return;
      this.remove(scope, name);
      this.options.onExpired?.(scope, name);
    }, this.options.holdMs);
    timer.unref();
    this.scopes.set(key, held.set(name, { content, at, timer }));
    return true;
  }

  has(scope: Scope, name: string): boolean {
    return Boolean(this.scopes.get(keyOf(scope))?.has(name));
  }

  /** Takes a held upload out (a rename hands it on); undefined when there is none. */
  take(scope: Scope, name: string): HeldUpload<C> | undefined {
    const held = this.scopes.get(keyOf(scope));
    const entry = held?.get(name);
    if (!entry) return undefined;
    this.remove(scope, name);
    return { content: entry.content, at: entry.at };
  }

  /** Drops a held upload (the client deleted it); false when there is none. */
  remove(scope: Scope, name: string): boolean {
    const key = keyOf(scope);
    const held = this.scopes.get(key);
    const entry = held?.get(name);
    if (!entry) return false;
    clearTimeout(entry.timer);
    held!.delete(name);
    if (!held!.size) this.scopes.delete(key);
    return true;
  }

  /** What the listing shows with status `uploading`. */
  list(scope: Scope): PendingUpload[] {
    return [...(this.scopes.get(keyOf(scope)) ?? [])].map(([name, e]) => ({ name, size: heldSize(e.content), at: e.at }));
  }

  /** The server stops: everything held is dropped; returns how many. */
  clear(): number {
    let n = 0;
    for (const held of this.scopes.values()) {
      for (const e of held.values()) clearTimeout(e.timer);
      n += held.size;
    }
    this.scopes.clear();
    return n;
  }
}

/**
 * A rename of a held upload: to another temporary name it stays held; to a final name `handOver`
 * gets it, and it leaves the store only once that resolved (a failed hand-over can be retried).
 * Two sessions renaming the same upload at once: the second finds nothing.
 */
export async function renameHeld<T, C extends HeldContent>(
  store: HeldUploads<C>,
  scope: Scope,
  from: string,
  to: { name: string; temp: boolean },
  handOver: (content: C) => Promise<T>,
): Promise<{ kind: 'held'; name: string } | { kind: 'received'; result: T } | undefined> {
  const held = store.take(scope, from);
  if (!held) return undefined;
  if (to.temp) {
    store.hold(scope, to.name, held.content, held.at, true);
    return { kind: 'held', name: to.name };
  }
  try {
    return { kind: 'received', result: await handOver(held.content) };
  } catch (err) {
    // back in its place even if other uploads took the room meanwhile
    store.hold(scope, from, held.content, held.at, true);
    throw err;
  }
}
