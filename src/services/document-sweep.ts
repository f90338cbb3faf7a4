// The document store's sweep (a periodic task, `documents.sweep`): objects that no committed row
// points at are removed once they are older than the grace period (DOCUMENT_SWEEP_GRACE_HOURS),
// never sooner. Writers put an object before they commit the row that points at it, and a put of
// content already stored renews its modification time, so an object a row is about to point at
// is always younger than the grace period. For the database driver the check and the delete are
// one transaction (its objects locked first: the driver's removeUnreferenced); for the others each orphan's age and references are read again just before its
// delete.
// What is looked at (issues 45/46): every run, the candidates, the objects whose pointer went away
// (migration 0030's triggers note each one), once released longer ago than the grace; its cost
// follows what changed, not what the store holds. The whole store is listed only every
// DOCUMENT_SWEEP_FULL_INTERVAL_HOURS: no trigger sees a put whose row never committed (a crash, a
// refused or failed upload), and only the listing finds those. A candidate is no verdict: each
// goes through the same checks as a listed object.
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { DocumentStore } from '../storage/document-store.ts';

const BATCH = 500;

export interface SweepResult {
  /** objects older than the grace period that were looked at: the candidates, and in a full pass every one */
  checked: number;
  removed: number;
  /** what puts cut short left behind (temporary files or uploads), removed */
  leftovers: number;
  /** of `checked`, the candidates: objects whose pointer went away before the grace period */
  candidates: number;
  /** whether this run listed the whole store */
  full: boolean;
}

export interface SweepOptions {
  /** DOCUMENT_SWEEP_GRACE_HOURS: nothing younger goes, neither its put nor its release */
  graceMs: number;
  /** DOCUMENT_SWEEP_FULL_INTERVAL_HOURS: how often the whole store is listed */
  fullIntervalMs: number;
}

export class DocumentSweep {
  private readonly graceMs: number;
  private readonly fullIntervalMs: number;

  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'objects'>,
    private readonly store: DocumentStore,
    opts: SweepOptions,
  ) {
    this.graceMs = opts.graceMs;
    this.fullIntervalMs = opts.fullIntervalMs;
  }

  async run(now = Date.now()): Promise<SweepResult> {
    const cutoff = new Date(now - this.graceMs);
    // first what puts cut short left (a temporary file, an S3 multipart's temporary object), past the same grace
    const leftovers = (await this.store.removeLeftovers?.(cutoff)) ?? 0;
    const result: SweepResult = { checked: 0, removed: 0, leftovers, candidates: 0, full: false };
    for (;;) {
      const { sha256s, last } = await this.repos.objects.released(this.db, cutoff, BATCH);
      if (!last) break;
      result.candidates += sha256s.length;
      result.checked += sha256s.length;
      result.removed += await this.sweep(sha256s, cutoff);
      // checked: removed, or pointed at (still, or again); a later release is a new candidate
      await this.repos.objects.forgetReleased(this.db, last);
    }
    if (await this.fullPassDue(now)) {
      await this.listAll(cutoff, result);
      await this.repos.objects.fullSweepDone(this.db, new Date(now));
      result.full = true;
    }
    return result;
  }

  /**
   * None yet, or the last one `fullIntervalMs` ago. A last one later than now means the clock went
   * back (or another node's runs ahead): one now rather than none until the clock has caught up.
   */
  private async fullPassDue(now: number): Promise<boolean> {
    const last = (await this.repos.objects.lastFullSweep(this.db))?.getTime();
    return last === undefined || now - last >= this.fullIntervalMs || last > now;
  }

  /** Every object older than the cutoff, in batches: what no trigger saw (a put whose row never committed). */
  private async listAll(cutoff: Date, result: SweepResult): Promise<void> {
    let batch: string[] = [];
    const flush = async () => {
      result.checked += batch.length;
      result.removed += await this.sweep(batch, cutoff);
      batch = [];
    };
    for await (const o of this.store.list({ olderThan: cutoff })) {
      batch.push(o.sha256);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length) await flush();
  }

  private async sweep(sha256s: string[], cutoff: Date): Promise<number> {
    const inOne = await this.store.removeUnreferenced?.(sha256s, cutoff, (q, shas) => this.repos.objects.unreferenced(q, shas));
    if (inOne !== undefined) return inOne;
    let removed = 0;
    for (const sha256 of await this.repos.objects.unreferenced(this.db, sha256s)) {
      // put again meanwhile (a new row is about to point at it), or pointed at since: it stays
      if (!(await this.stillOld(sha256, cutoff)) || (await this.repos.objects.unreferenced(this.db, [sha256])).length === 0) continue;
      await this.store.delete(sha256);
      removed++;
    }
    return removed;
  }

  /** Whether the object is still there and still older than the cutoff (a put renews its time). */
  private async stillOld(sha256: string, cutoff: Date): Promise<boolean> {
    for await (const o of this.store.list({ after: sha256.slice(0, 63), olderThan: cutoff })) {
      if (o.sha256 >= sha256) return o.sha256 === sha256;
    }
    return false;
  }
}
