// Staging by group commit (docs/intake.md, "Staging"): files received while a group is being
// staged are staged together in the next one: one statement and one commit for their records,
// history lines and import.* events (in a transaction only when a webhook wants them), then one
// addBulk for their jobs. Each file's promise keeps its meaning: it resolves once its record is
// committed and its job queued, and rejects when either failed (its sender is not told it was
// received). A group whose statement fails is staged again file by file, so that one bad file
// fails only its own sender.
import type { Database } from '../db/database.ts';
import type { UnitOfWork } from '../db/units.ts';
import type { ImportRecord } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import type { Logger } from '../platform/logger.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import type { IntakeJobRef, IntakeScheduler } from './intake-jobs.ts';
import type { NewImport } from './intake-repository.ts';
import type { IntakeRepositories } from './intake-repositories.ts';
import type { StagedBytesCache } from './staged-bytes-cache.ts';
import { Batcher, failed, ok, type BatchCaps, type Outcome } from './batcher.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import { putStaged } from './staged-objects.ts';
import type { LocalRuns } from './local-runs.ts';

/** A file to stage: its record, and its job (none for a file refused at once). */
export interface StagingItem {
  scope: Scope;
  f: NewImport;
  job: IntakeJobRef | null;
}

/** A file waiting for its group, its bytes already on their way into the store (never rejects). */
interface Waiting {
  item: StagingItem;
  stored: Promise<Outcome<NewImport>>;
}

/** What staging reports (ops/metrics.ts's IntakeMetrics): the size of each group. */
export interface StagingReport {
  stagingBatch(files: number, bytes: number): void;
}

/** 64 files or 16 MB a group: a statement of at most 64 x 18 parameters, and a bounded transaction. */
const STAGING_CAPS: BatchCaps = { maxItems: 64, maxBytes: 16 * 1024 * 1024 };

interface StagingGroupOptions {
  db: Database;
  repos: IntakeRepositories;
  store: Pick<DocumentStore, 'put' | 'inStatement'>;
  scheduler: IntakeScheduler;
  outbox: EventOutbox;
  units: UnitOfWork;
  log: Logger;
  /** read at each flush: set when this process also runs workers (IntakeService.handOffBytesTo) */
  cache: () => StagedBytesCache | undefined;
  /** read at each flush: this process's runs without a job (IntakeService.runHereWith), for the files staged with their lease */
  local: () => LocalRuns | undefined;
  report?: StagingReport;
  caps?: BatchCaps;
}

export class StagingGroup {
  private readonly batcher: Batcher<Waiting, ImportRecord>;

  private readonly db: Database;
  private readonly repos: IntakeRepositories;
  private readonly store: Pick<DocumentStore, 'put' | 'inStatement'>;
  private readonly scheduler: IntakeScheduler;
  private readonly outbox: EventOutbox;
  private readonly units: UnitOfWork;
  private readonly log: Logger;
  private readonly cache: () => StagedBytesCache | undefined;
  private readonly local: () => LocalRuns | undefined;
  private readonly report: StagingReport | undefined;

  constructor(o: StagingGroupOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.store = o.store;
    this.scheduler = o.scheduler;
    this.outbox = o.outbox;
    this.units = o.units;
    this.log = o.log;
    this.cache = o.cache;
    this.local = o.local;
    this.report = o.report;
    const { caps = STAGING_CAPS } = o;
    this.batcher = new Batcher(
      (items) => this.flush(items),
      caps,
      (w) => w.item.f.content?.length ?? 0,
    );
  }

  /**
   * Stages one file with whatever group it joins; resolves once it is committed and queued. Its
   * bytes go into the store from now on, beside the group being committed: groups commit one at a
   * time, so a put begun only with its own group would also wait for the group before (with a
   * store that did not answer, the second of two uploads was answered after twice the time-out).
   */
  stage(item: StagingItem): Promise<ImportRecord> {
    const stored = putStaged(this.store, item.f, { inStatement: true }).then(ok, failed<NewImport>);
    return this.batcher.submit({ item, stored });
  }

  /** One file on its own: its record (and event) in one statement, then its job. Also the path inside a unit of work. */
  async stageOne(given: StagingItem): Promise<ImportRecord> {
    const item = { ...given, f: await putStaged(this.store, given.f, { inStatement: true }) };
    const record = await this.insertOne(item);
    const [outcome] = await this.enqueue([item], [record]);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async flush(waiting: Waiting[]): Promise<Outcome<ImportRecord>[]> {
    this.report?.stagingBatch(
      waiting.length,
      waiting.reduce((n, w) => n + (w.item.f.content?.length ?? 0), 0),
    );
    // every file's bytes in the store before the group's rows: one the store refused fails only its sender
    const stored = await Promise.all(waiting.map((w) => w.stored));
    const ready = waiting.flatMap((w, i) => {
      const s = stored[i];
      return s.ok ? [{ ...w.item, f: s.value }] : [];
    });
    if (ready.length === waiting.length) return this.commit(ready);
    const staged = ready.length ? await this.commit(ready) : [];
    return stored.map((s) => (s.ok ? staged.shift()! : failed<ImportRecord>(s.error)));
  }

  /** Files whose bytes are stored: one alone, or a group in one statement (file by file when that fails). */
  private async commit(ready: StagingItem[]): Promise<Outcome<ImportRecord>[]> {
    if (ready.length === 1) return [await this.stageOne(ready[0]).then(ok, failed<ImportRecord>)];
    let records: ImportRecord[];
    try {
      records = await this.insertMany(ready);
    } catch (err) {
      // nothing of the group was committed: each file alone, so one bad file fails only its sender
      this.log.warn({ err, files: ready.length }, 'staging group failed: staging its files one by one');
      return Promise.all(ready.map((i) => this.stageOne(i).then(ok, failed<ImportRecord>)));
    }
    return this.enqueue(ready, records);
  }

  private insertOne({ scope, f }: StagingItem): Promise<ImportRecord> {
    return this.outbox.change(
      scope,
      `import.${f.status}`,
      (q) => this.repos.intake.insert(q, scope, f),
      (_q, record) => () => ({ resource: 'import', record }),
    );
  }

  /**
   * The group's records in one statement, with their import.* events. Files of one scope and one
   * first status (the usual group): as for one file, the statement runs on its own when no webhook
   * wants the event, else in a transaction with the events (the loader writes all but the last,
   * which the outbox writes). A mixed group: one transaction, each event where it is wanted.
   */
  private insertMany(items: StagingItem[]): Promise<ImportRecord[]> {
    const [{ scope, f }] = items;
    const type = `import.${f.status}`;
    if (items.every((i) => i.scope.accountId === scope.accountId && i.scope.mode === scope.mode && i.f.status === f.status)) {
      return this.outbox.change(
        scope,
        type,
        (q) => this.repos.intake.insertMany(q, items),
        (tx, records) => async () => {
          for (const record of records.slice(0, -1)) await this.outbox.write(tx, scope, type, { resource: 'import', record });
          return { resource: 'import', record: records[records.length - 1] };
        },
      );
    }
    return this.units.transaction(async (tx) => {
      const records = await this.repos.intake.insertMany(tx, items);
      for (const [i, { scope, f }] of items.entries())
        await this.outbox.record(tx, scope, `import.${f.status}`, () => ({ resource: 'import', record: records[i] }));
      return records;
    });
  }

  /**
   * Queues the jobs of the committed records in one call. When that fails, the files are not
   * acknowledged, so their senders will send them again: their staged copies are dropped (if even
   * that fails, the reconciler queues them later, and the same bytes attach only once).
   */
  private async enqueue(items: StagingItem[], records: ImportRecord[]): Promise<Outcome<ImportRecord>[]> {
    const all = items.flatMap((i, n) => (i.job && i.f.content ? [{ item: i, job: i.job, bytes: i.f.content, record: records[n] }] : []));
    if (all.length === 0) return records.map(ok);
    const cache = this.cache();
    // cached before the enqueue: a worker of this process may take a job at once
    for (const q of all) cache?.put(q.record.id, q.bytes);
    // staged with their lease: run here, no job (a file staged so without runs here any more gets its job)
    const local = this.local();
    const queued = local ? all.filter((q) => !q.item.f.runLeaseMs) : all;
    if (local) for (const q of all) if (q.item.f.runLeaseMs) local.run(q.job);
    if (queued.length === 0) return records.map(ok);
    try {
      const jobs = queued.map((q) => q.job);
      await (this.scheduler.enqueueMany && jobs.length > 1 ? this.scheduler.enqueueMany(jobs) : Promise.all(jobs.map((j) => this.scheduler.enqueue(j))));
    } catch (err) {
      await Promise.all(
        queued.map(async ({ item, record }) => {
          cache?.take(record.id);
          await this.repos.intake
            .remove(this.db, item.scope, record.id)
            .catch((e) => this.log.error({ err: e, intakeId: record.id }, 'could not drop an unqueued staged file'));
          this.log.error({ err, intakeId: record.id, channel: item.f.channel, traceId: item.f.traceId ?? undefined }, 'intake not enqueued');
        }),
      );
      const unqueued = new Set(queued.map((q) => q.record.id));
      return records.map((r) => (unqueued.has(r.id) ? failed<ImportRecord>(err) : ok(r)));
    }
    return records.map(ok);
  }
}
