// A ZIP archive handed in by a channel: unpacked in memory, then the archive's record and one
// record per file in it staged in ONE transaction, so a crash while unpacking stages nothing (the
// channel has not acknowledged, the sender sends again) and a finished archive is staged whole.
// The jobs are queued after the commit; the reconciler queues any a crash left out.
// Memory: the archive's bytes plus one file at a time (each at most 5 MB, checked before inflating):
// each file goes into the document store before the transaction, which writes only pointers.
import { createHash } from 'node:crypto';
import pMap from 'p-map';
import {
  entryBaseName,
  entryCountRefusal,
  entryRefusal,
  isIgnoredEntry,
  nestedArchiveRefusal,
  totalSizeRefusal,
  unpackedReason,
  type ArchiveLimits,
} from '../domain/archive.ts';
import type { ImportRecord } from '../domain/intake.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';
import type { Scope } from '../domain/scope.ts';
import type { UnitOfWork, UnitTransaction } from '../db/units.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import type { IncomingFile } from './intake-port.ts';
import type { IntakeRepository, NewImport } from './intake-repository.ts';
import { openZip, type ListedEntry, type OpenZip } from './zip-reader.ts';
import { putStaged } from './staged-objects.ts';
import { StoreUnavailableError, type DocumentStore } from '../storage/document-store.ts';
import type { StoredZip } from './stored-zip-source.ts';

export const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
export const EMPTY_SHA256 = sha256Of(new Uint8Array());

/** How a file (an archive's, or one on its own) becomes a staged record: the service's rules. */
export type ToNewImport = (file: IncomingFile, archiveId: string | null) => NewImport;

export interface StagedArchive {
  archive: ImportRecord;
  /** the records of the files in it, in the archive's order */
  files: ImportRecord[];
}

type Opened = { zip: OpenZip; entries: ListedEntry[] } | { reason: IntakeReason };

// the ZIP library's message never reaches a person: the archive is damaged, or no ZIP archive
const unreadable = () => intakeReason('zip_unreadable');

/** The central directory, or why the archive as a whole is refused (nothing inflated yet). */
async function open(source: Buffer | StoredZip, limits: ArchiveLimits): Promise<Opened> {
  const size = Buffer.isBuffer(source) ? source.length : source.size;
  if (size > limits.maxTotalBytes) return { reason: intakeReason('zip_too_large', { max: limits.maxTotalBytes }) };
  let zip: OpenZip;
  try {
    zip = await openZip(source);
  } catch (e) {
    if (e instanceof StoreUnavailableError) throw e;
    return { reason: unreadable() };
  }
  try {
    const tooMany = entryCountRefusal(zip.entryCount, limits);
    const entries = tooMany ? [] : (await zip.list()).filter((e) => !isIgnoredEntry(e.path));
    const reason = tooMany ?? (entries.length ? totalSizeRefusal(entries, limits) : intakeReason('zip_no_files'));
    if (!reason) return { zip, entries };
    zip.close();
    return { reason };
  } catch (e) {
    zip.close();
    if (e instanceof StoreUnavailableError) throw e; // the store, not the archive: a passing failure
    return { reason: unreadable() };
  }
}

/** One entry as a file of the archive's sender and channel: its bytes, or why it has none. */
async function entryFile(zip: OpenZip, e: ListedEntry, archive: IncomingFile): Promise<{ file: IncomingFile; refused?: IntakeReason }> {
  const filename = entryBaseName(e.path);
  // an e-mail's subject speaks of the message, not of each file in its archive: never matched
  const base = { ...archive, filename, bytes: Buffer.alloc(0), subject: undefined };
  const refused = entryRefusal(e);
  if (refused) return { file: base, refused };
  let bytes: Buffer;
  try {
    bytes = await zip.read(e);
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw err; // the store, not the entry: the archive is not staged, its sender retries
    return { file: base, refused: intakeReason('zip_entry_unreadable', { name: filename }) };
  }
  return { file: { ...base, bytes }, refused: nestedArchiveRefusal(filename, bytes) };
}

async function insert(repo: IntakeRepository, tx: UnitTransaction, outbox: EventOutbox, scope: Scope, f: NewImport): Promise<ImportRecord> {
  const r = await repo.insert(tx, scope, f);
  if (f.status !== 'unpacked') await outbox.record(tx, scope, `import.${f.status}`, () => ({ resource: 'import', record: r }));
  return r;
}

/**
 * Unpacks and stages the archive (`refusal`: why it is refused before unpacking, e.g. a disabled
 * account): `archive.bytes`, or the object `stored` when it streamed into the store (taken-upload.ts).
 * Jobs are not queued here: see queueArchiveFiles.
 */
export async function stageArchive(
  { units, outbox }: { units: UnitOfWork; outbox: EventOutbox },
  repo: IntakeRepository,
  store: Pick<DocumentStore, 'put' | 'stream'>,
  archive: IncomingFile,
  limits: ArchiveLimits,
  refusal: IntakeReason | null,
  toNew: ToNewImport,
  stored?: { sha256: string; size: number },
): Promise<StagedArchive> {
  const { scope } = archive;
  const source = stored ? { store, ...stored } : archive.bytes;
  const opened: Opened = refusal ? { reason: refusal } : await open(source, limits);
  const own: NewImport = {
    ...toNew({ ...archive, bytes: Buffer.alloc(0) }, null),
    matchName: null,
    ...(stored ? { size: stored.size, sha256: stored.sha256 } : { size: archive.bytes.length, sha256: sha256Of(archive.bytes) }),
  };
  if ('reason' in opened) {
    const failed = { ...own, status: 'failed' as const, reason: opened.reason };
    return { archive: await units.transaction((tx) => insert(repo, tx, outbox, scope, failed)), files: [] };
  }
  const { zip, entries } = opened;
  try {
    // each file's bytes into the store first (one at a time: only its pointer is kept), then the rows
    const staged: NewImport[] = [];
    for (const e of entries) {
      const { file, refused } = await entryFile(zip, e, archive);
      const f = toNew(file, own.id);
      staged.push(refused ? { ...f, status: 'failed', reason: refused, content: null } : { ...(await putStaged(store, f)), content: null });
    }
    // the files first (the foreign key is deferred), so the archive's record is the newest
    return await units.transaction(async (tx) => {
      const files: ImportRecord[] = [];
      for (const f of staged) files.push(await insert(repo, tx, outbox, scope, f));
      const failed = files.filter((f) => f.status === 'failed').length;
      const parent = await insert(repo, tx, outbox, scope, { ...own, status: 'unpacked', reason: unpackedReason(files.length, failed) });
      return { archive: parent, files };
    });
  } finally {
    zip.close();
  }
}

/** Queues the staged files' jobs; when one cannot be queued the archive's staging is undone and this throws. */
export async function queueArchiveFiles(staged: StagedArchive, enqueue: (r: ImportRecord) => Promise<void>, undo: () => Promise<void>): Promise<void> {
  try {
    await pMap(
      staged.files.filter((f) => f.status === 'received'),
      enqueue,
      { concurrency: 16 },
    );
  } catch (err) {
    await undo();
    throw err;
  }
}
