// Copies an installation's objects from one document store to another while the service runs
// (`npm run admin -- move-documents`, docs/operations.md "Moving the documents"). It walks the
// SHA-256s that committed rows point at, in order, from a cursor (so an interrupted pass resumes
// where it stopped), and for each: already in the target -> skipped; else copied, then read back
// from the target and hashed, and only an object whose bytes hash to its name counts as moved.
// Nothing in the database changes: rows name objects by SHA-256, not by store, so the service
// points at the target when it is restarted with DOCUMENT_STORE set to it — after a pass that
// found everything there.
import { createHash } from 'node:crypto';
import pMap from 'p-map';
import { StoreMissingError, type DocumentStore } from '../storage/document-store.ts';

export interface MoveSource {
  /** the SHA-256s rows point at, after `after`, in order, at most `limit` */
  referenced(after: string, limit: number): Promise<string[]>;
  /** how many distinct SHA-256s rows point at (for the progress) */
  countReferenced(): Promise<number>;
}

export interface MoveProgress {
  /** objects looked at in this pass (resumed passes count from their cursor) */
  seen: number;
  /** of them: copied and verified in the target */
  copied: number;
  /** of them: already in the target */
  present: number;
  /** of them: in neither store (a row pointing at nothing: reported, never hidden) */
  missing: string[];
  bytes: number;
  /** the last SHA-256 done: everything up to it is in the target (the resumable cursor) */
  after: string;
  total: number;
}

export class MoveVerificationError extends Error {}

const BATCH = 200;

export class DocumentMove {
  constructor(
    private readonly rows: MoveSource,
    private readonly from: DocumentStore,
    private readonly to: DocumentStore,
    private readonly opts: { maxBytes: number; concurrency?: number },
  ) {}

  /** One pass from `after` ('' for all); `report` hears after each batch, with the cursor to resume from. */
  async run(after: string, report: (p: MoveProgress) => void | Promise<void>): Promise<MoveProgress> {
    const p: MoveProgress = { seen: 0, copied: 0, present: 0, missing: [], bytes: 0, after, total: await this.rows.countReferenced() };
    for (;;) {
      const batch = await this.rows.referenced(p.after, BATCH);
      if (batch.length === 0) return p;
      await pMap(batch, (sha256) => this.moveOne(sha256, p), { concurrency: this.opts.concurrency ?? 8 });
      p.seen += batch.length;
      // every object of the batch is done before the cursor passes it: a pass stopped anywhere resumes safely
      p.after = batch[batch.length - 1];
      await report(p);
    }
  }

  private async moveOne(sha256: string, p: MoveProgress): Promise<void> {
    if (await this.to.has(sha256)) {
      p.present++;
      return;
    }
    let put;
    try {
      put = await this.to.put(await this.from.stream(sha256), { maxBytes: this.opts.maxBytes });
    } catch (e) {
      if (!(e instanceof StoreMissingError)) throw e;
      p.missing.push(sha256);
      return;
    }
    if (put.sha256 !== sha256)
      throw new MoveVerificationError(`${sha256} in the ${this.from.kind} store holds bytes whose SHA-256 is ${put.sha256}: not moved`);
    // read back what the target keeps, not what was sent
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of await this.to.stream(sha256)) hash.update(chunk), (size += chunk.length);
    const read = hash.digest('hex');
    if (read !== sha256 || size !== put.size)
      throw new MoveVerificationError(`${sha256} read back from the ${this.to.kind} store hashes to ${read} (${size} bytes): not moved`);
    p.copied++;
    p.bytes += size;
  }
}
