// The database driver: bytes in the table document_objects, keyed by SHA-256 (the embedded
// default; `npm start` needs nothing new). put() commits on its own, before the caller's row; the
// statements that stage received files and SMTP messages write their objects themselves instead
// (inStatement: one round trip and one commit a file fewer).
import { readBytes, type Database } from '../db/database.ts';
import {
  assertSha256,
  StoreMissingError,
  type DocumentStore,
  type ListedObject,
  type ListOptions,
  type ObjectsInStatement,
  type PutOptions,
  type ReadOptions,
  type StoredObject,
  type UnreferencedCheck,
} from './document-store.ts';
import { collect } from './store-bytes.ts';

const PAGE = 500;

export class DatabaseStore implements DocumentStore {
  readonly kind = 'database' as const;
  constructor(private readonly db: Database) {}

  readonly inStatement: ObjectsInStatement = {
    sql(params, objects) {
      // one row a content: ON CONFLICT DO UPDATE may not touch a row twice in one statement
      const distinct = [...new Map(objects.map((o) => [o.sha256, o])).values()];
      const values = distinct.map((o) => {
        assertSha256(o.sha256);
        const at = params.push(o.sha256, o.bytes.length, o.bytes);
        return `($${at - 2}::text, $${at - 1}::int, $${at}::bytea)`;
      });
      // the same content again keeps its bytes (its TOAST value is not rewritten) and renews modified_at
      return `insert into document_objects (sha256, size, content) values ${values.join(', ')} on conflict (sha256) do update set modified_at = now()`;
    },
  };

  async put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject> {
    const { buffer, sha256 } = await collect(bytes, opts.maxBytes, opts.signal);
    opts.signal?.throwIfAborted();
    // the statement a caller's own would carry (inStatement), on its own
    const params: unknown[] = [];
    await this.db.query(this.inStatement.sql(params, [{ sha256, bytes: buffer }]), params, { prepare: true });
    return { sha256, size: buffer.length };
  }

  async get(sha256: string, opts?: ReadOptions): Promise<Buffer> {
    assertSha256(sha256);
    const bytes = await readBytes(this.db, 'select content from document_objects where sha256 = $1', [sha256]);
    opts?.signal?.throwIfAborted();
    if (!bytes) throw new StoreMissingError(sha256);
    return bytes;
  }

  async stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>> {
    const whole = await this.get(sha256, opts);
    const bytes = opts?.range ? whole.subarray(opts.range.start, Math.max(opts.range.start, opts.range.end)) : whole;
    return (async function* () {
      yield bytes;
    })();
  }

  async has(sha256: string): Promise<boolean> {
    assertSha256(sha256);
    const rows = await this.db.query('select 1 from document_objects where sha256 = $1', [sha256], { prepare: true });
    return rows.length > 0;
  }

  async delete(sha256: string): Promise<void> {
    assertSha256(sha256);
    await this.db.query('delete from document_objects where sha256 = $1', [sha256]);
  }

  /**
   * The objects put before `olderThan` are locked first: a put of the same content (which renews
   * modified_at) waits for this commit and then inserts it again, so nothing a new row is about to
   * point at goes; the rows' check runs after the lock, in the same transaction.
   */
  removeUnreferenced(sha256s: string[], olderThan: Date, unreferenced: UnreferencedCheck): Promise<number> {
    return this.db.transaction(async (tx) => {
      const stale = await tx.query<{ sha256: string }>('select sha256 from document_objects where sha256 = any($1::text[]) and modified_at < $2 for update', [
        sha256s,
        olderThan,
      ]);
      const gone = stale.length
        ? await unreferenced(
            tx,
            stale.map((r) => r.sha256),
          )
        : [];
      if (gone.length) await tx.query('delete from document_objects where sha256 = any($1::text[])', [gone]);
      return gone.length;
    });
  }

  async *list(opts: ListOptions = {}): AsyncIterable<ListedObject> {
    let after = opts.after ?? '';
    for (;;) {
      const rows = await this.db.query<{ sha256: string; size: number; modified_at: Date | string }>(
        `select sha256, size, modified_at from document_objects
         where sha256 > $1 and ($2::timestamptz is null or modified_at < $2) order by sha256 limit ${PAGE}`,
        [after, opts.olderThan ?? null],
      );
      for (const r of rows) yield { sha256: r.sha256, size: Number(r.size), modifiedAt: new Date(r.modified_at) };
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].sha256;
    }
  }
}
