// The producer side of intake: channels hand files here (IntakeReceiver); the API reads records;
// newly created invoices wake the files that wait for them.
import type { Logger } from '../platform/logger.ts';
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Invoice } from '../domain/models.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import { isArchiveName, type ArchiveLimits } from '../domain/archive.ts';
import { queueArchiveFiles, stageArchive } from './archive-intake.ts';
import { unsafeNameReason } from './file-name.ts';
import { ACCOUNT_DISABLED, failedImport, newImport } from './new-import.ts';
import type { IntakeJobRef, IntakeScheduler } from './intake-jobs.ts';
import type { IncomingFile, IntakeReceiver, TakenUpload } from './intake-port.ts';
import { readBack, takeUpload } from './taken-upload.ts';
import { INTAKE_STATUSES, type IntakeCount, type IntakeFilter, type IntakeListItem, type ImportRecord, type IntakeStatus } from '../domain/intake.ts';
import type { AdminImportRecord } from './intake-repository.ts';
import type { IntakeRepositories } from './intake-repositories.ts';
import type { AccountService } from '../services/account-service.ts';
import type { StagedBytesCache } from './staged-bytes-cache.ts';
import type { IntakeReason } from '../domain/intake-reasons.ts';
import { currentUnit, type UnitOfWork } from '../db/units.ts';
import { StagingGroup, type StagingReport } from './staging-group.ts';
import { Batcher, ok } from './batcher.ts';
import type { WaitingAsk } from './waiting-files-repository.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import type { LocalRuns } from './local-runs.ts';

interface IntakeServiceOptions {
  db: Database;
  repos: IntakeRepositories;
  /** where received files' bytes go before their rows (DOCUMENT_STORE) */
  store: DocumentStore;
  scheduler: IntakeScheduler;
  outbox: EventOutbox;
  units: UnitOfWork;
  accounts: Pick<AccountService, 'isDisabled'>;
  log: Logger;
  events?: DomainEvents;
  archiveLimits?: ArchiveLimits;
  report?: StagingReport;
}

export class IntakeService implements IntakeReceiver {
  private readonly db: Database;
  private readonly repos: IntakeRepositories;
  private readonly store: DocumentStore;
  private readonly scheduler: IntakeScheduler;
  private readonly outbox: EventOutbox;
  private readonly units: UnitOfWork;
  private readonly accounts: Pick<AccountService, 'isDisabled'>;
  private readonly log: Logger;
  private readonly events: DomainEvents | undefined;
  private readonly archiveLimits: ArchiveLimits;

  constructor(o: IntakeServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.store = o.store;
    this.scheduler = o.scheduler;
    this.outbox = o.outbox;
    this.units = o.units;
    this.accounts = o.accounts;
    this.log = o.log;
    this.events = o.events;
    this.archiveLimits = o.archiveLimits ?? { maxEntries: 1000, maxTotalBytes: 200 * 1024 * 1024 };
    const { db, repos } = o;
    this.staging = new StagingGroup({ ...o, cache: () => this.stagedBytes, local: () => this.localRuns });
    // POST /v2/invoices under load: many new invoices, one look-up statement for all of them
    this.waitingLookups = new Batcher(
      async (asks) => (await repos.waitingFiles.naming(db, asks)).map(ok),
      { maxItems: 256, maxBytes: Infinity },
      () => 0,
    );
  }

  private readonly waitingLookups: Batcher<WaitingAsk, string[]>;

  /** group commit of received files (staging-group.ts) */
  private readonly staging: StagingGroup;

  /** set when this process also runs workers: they take the bytes from here (staged-bytes-cache.ts) */
  private stagedBytes?: StagedBytesCache;

  handOffBytesTo(cache: StagedBytesCache): void {
    this.stagedBytes = cache;
  }

  /** set when this process also runs workers: files received `inProcess` run there without a job (local-runs.ts) */
  private localRuns?: LocalRuns;

  runHereWith(runs: LocalRuns): void {
    this.localRuns = runs;
  }

  private emit(scope: Scope, r: ImportRecord): void {
    this.events?.emit('intakeStatus', { scope, intakeId: r.id, channel: r.channel, status: r.status, reason: r.reason });
  }

  async receive(file: IncomingFile): Promise<ImportRecord> {
    const disabled = await this.accounts.isDisabled(file.scope.accountId);
    if (isArchiveName(file.filename)) return this.receiveArchive(file, disabled);
    const f = newImport(file, disabled);
    const job = f.reason ? null : jobRef(file, f.id);
    // its intake step here, without a job: the record gets the lease that keeps the reconciler off it
    // (never inside a unit of work: the run would start before its commit)
    if (job && file.inProcess && !currentUnit() && this.localRuns?.hasRoom()) f.runLeaseMs = this.localRuns.leaseMs;
    const item = { scope: file.scope, f, job };
    // inside a unit of work (a request's transaction) the file cannot join another transaction
    const record = await (currentUnit() ? this.staging.stageOne(item) : this.staging.stage(item));
    // no child logger when the line is not written (LOG_LEVEL=warn): making one costs as much as the line
    const log = this.log.isLevelEnabled('info') ? this.log.child({ intakeId: record.id, channel: file.channel, traceId: file.traceId }) : undefined;
    if (record.reason) log?.info({ reason: record.reason, filename: file.filename }, 'intake refused at once');
    else log?.info({ filename: file.filename, size: record.size }, 'intake received');
    this.emit(file.scope, record);
    return record;
  }

  takeUpload(filename: string, body: AsyncIterable<Uint8Array>, maxBytes: number, opts?: { temporary?: boolean }): Promise<TakenUpload> {
    return takeUpload(this.store, filename, body, maxBytes, opts);
  }

  async receiveUpload(file: Omit<IncomingFile, 'bytes'>, upload: TakenUpload): Promise<ImportRecord> {
    if (upload.kind === 'bytes') return this.receive({ ...file, bytes: upload.bytes });
    if (!isArchiveName(file.filename)) return this.receive({ ...file, bytes: await readBack(this.store, file.filename, upload) });
    return this.receiveArchive({ ...file, bytes: Buffer.alloc(0) }, await this.accounts.isDisabled(file.scope.accountId), upload);
  }

  /** A ZIP archive: its files staged with it in one transaction, then their jobs queued (archive-intake.ts). */
  private async receiveArchive(file: IncomingFile, disabled: boolean, stored?: { sha256: string; size: number }): Promise<ImportRecord> {
    const started = Date.now();
    // an archive's name is never matched: only a name that cannot be taken as it is refuses it
    const refusal = disabled ? ACCOUNT_DISABLED : (unsafeNameReason(file.filename) ?? null);
    const toNew = (f: IncomingFile, archiveId: string | null) => newImport(f, false, archiveId);
    const staged = await stageArchive(
      { units: this.units, outbox: this.outbox },
      this.repos.intake,
      this.store,
      file,
      this.archiveLimits,
      refusal,
      toNew,
      stored,
    );
    const log = this.log.child({ intakeId: staged.archive.id, channel: file.channel, traceId: file.traceId });
    await queueArchiveFiles(
      staged,
      (r) => this.scheduler.enqueue(jobRef(file, r.id)),
      () => this.repos.intake.remove(this.db, file.scope, staged.archive.id).catch((e) => log.error({ err: e }, 'could not drop an unqueued staged archive')),
    ).catch((err) => {
      log.error({ err }, 'archive files not enqueued');
      throw err;
    });
    const failed = staged.files.filter((f) => f.status === 'failed').length;
    log.info(
      {
        filename: file.filename,
        size: staged.archive.size,
        status: staged.archive.status,
        reason: staged.archive.reason,
        files: staged.files.length,
        failed,
        ms: Date.now() - started,
      },
      'zip archive received',
    );
    for (const r of [staged.archive, ...staged.files]) this.emit(file.scope, r);
    return staged.archive;
  }

  async recordFailure(file: Omit<IncomingFile, 'bytes'>, reason: IntakeReason): Promise<ImportRecord> {
    // alone: a file's record with its first status (import.failed) and no job
    const record = await this.staging.stageOne({ scope: file.scope, job: null, f: failedImport(file, reason) });
    this.log.info({ intakeId: record.id, channel: file.channel, traceId: file.traceId, reason: reason.text }, 'intake failure recorded');
    this.emit(file.scope, record);
    return record;
  }

  /** The records of the files unpacked from a ZIP archive, in the archive's order. */
  archiveFiles(scope: Scope, archiveId: string): Promise<ImportRecord[]> {
    return this.repos.intake.archiveFiles(this.db, scope, archiveId);
  }

  recent(scope: Scope, limit: number): Promise<ImportRecord[]> {
    return this.repos.intake.recent(this.db, scope, limit);
  }

  async get(scope: Scope, id: string): Promise<ImportRecord> {
    const found = await this.repos.intake.find(this.db, scope, id);
    if (!found) throw DomainError.notFound('import', id);
    if (found.deleted) throw DomainError.gone('import', id);
    return found.record;
  }

  /** `uploadKeyId`: only what that upload key brought (an upload key lists nothing else) */
  list(scope: Scope, req: PageRequest, status?: string, uploadKeyId?: string): Promise<Page<ImportRecord>> {
    return this.repos.intake.page(this.db, scope, req, parseIntakeStatus(status), uploadKeyId);
  }

  search(scope: Scope, filter: IntakeFilter): Promise<IntakeListItem[]> {
    return this.repos.importLists.search(this.db, scope, filter);
  }

  counts(scope: Scope, since: Date): Promise<IntakeCount[]> {
    return this.repos.importLists.counts(this.db, scope, since);
  }

  /** The staged bytes of a file not discarded (the dashboard's download); undefined when gone. */
  async content(scope: Scope, id: string): Promise<Buffer | undefined> {
    const staged = await this.repos.intake.loadStaged(this.db, scope, id, true);
    if (!staged) throw DomainError.notFound('import', id);
    return staged.content ?? undefined;
  }

  /** Operators: records of every account and mode (files refused at once included), newest first. */
  listAll(req: PageRequest, status?: string): Promise<Page<AdminImportRecord>> {
    return this.repos.intake.pageAll(this.db, req, parseIntakeStatus(status));
  }

  /**
   * A new invoice (after its commit): the files waiting for its id or number run now instead of at
   * their next backoff tick. A job that is running right now may be about to wait: look again shortly.
   */
  async wakeWaiting(scope: Scope, invoice: Pick<Invoice, 'id' | 'invoiceNumber'>): Promise<void> {
    const intakeIds = await this.waitingLookups.submit({ scope, invoice });
    if (intakeIds.length === 0) return; // most new invoices: nothing waits for them
    await Promise.all(intakeIds.map((id) => this.wake(id)));
  }

  private async wake(intakeId: string, tries = 20): Promise<void> {
    for (let i = 0; i < tries; i++) {
      if (await this.scheduler.promote(intakeId)) {
        this.log.info({ intakeId }, 'waiting intake woken by a new invoice');
        return;
      }
      if ((await this.scheduler.state(intakeId)) !== 'active') return;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Retention (periodic): drops the bytes of files that failed more than `days` ago; their records stay. */
  dropFailedContent(days: number): Promise<number> {
    return this.repos.intake.dropFailedContent(this.db, days);
  }
}

const jobRef = (file: IncomingFile, intakeId: string): IntakeJobRef => ({
  intakeId,
  accountId: file.scope.accountId,
  mode: file.scope.mode,
  ...(file.traceId ? { traceId: file.traceId } : {}),
});

function parseIntakeStatus(raw: string | undefined): IntakeStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = raw.trim().toLowerCase();
  if (!INTAKE_STATUSES.includes(s as IntakeStatus)) throw DomainError.invalid(`Field status must be one of ${INTAKE_STATUSES.join(', ')}`, 'status');
  return s as IntakeStatus;
}
