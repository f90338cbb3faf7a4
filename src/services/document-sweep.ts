// The document store's sweep (a periodic task, `documents.sweep`): objects that no committed row
// points at are removed once they are older than the grace period (DOCUMENT_SWEEP_GRACE_HOURS),
// never sooner. Writers put an object before they commit the row that points at it, and a put of
// content already stored renews its modification time, so an object a row is about to point at
// is always younger than the grace period. For the database driver the check and the delete are
// one transaction (its objects locked first: the driver's removeUnreferenced); for the others each orphan's age and references are read again just before its
// delete.
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { DocumentStore } from '../storage/document-store.ts';

const BATCH = 500;

export interface SweepResult {
  /** objects older than the grace period that were looked at */
  checked: number;
  removed: number;
  /** what puts cut short left behind (temporary files or uploads), removed */
  leftovers: number;
}

export class DocumentSweep {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'objects'>,
    private readonly store: DocumentStore,
    private readonly graceMs: number,
  ) {}

  async run(now = Date.now()): Promise<SweepResult> {
    const cutoff = new Date(now - this.graceMs);
    // first what puts cut short left (a temporary file, an S3 multipart's temporary object), past the same grace
    const result: SweepResult = { checked: 0, removed: 0, leftovers: (await this.store.removeLeftovers?.(cutoff)) ?? 0 };
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
    return result;
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
