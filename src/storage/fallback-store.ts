// A store during a move (`npm run admin -- move-documents`, docs/operations.md "Moving the
// documents"): writes, deletes and listings go to the new store; a read that misses there reads
// the old one (DOCUMENT_STORE_FALLBACK). So a service restarted on the new store serves the
// objects that arrived after the first pass of the move (the tail) until the second pass has
// copied them, instead of answering 404 for them or failing their jobs.
import {
  StoreMissingError,
  type DocumentStore,
  type ListedObject,
  type ListOptions,
  type PutOptions,
  type ReadOptions,
  type StoredObject,
  type UnreferencedCheck,
} from './document-store.ts';

export class FallbackStore implements DocumentStore {
  constructor(
    private readonly primary: DocumentStore,
    private readonly fallback: DocumentStore,
  ) {}

  /** where puts go: the new store's */
  get inStatement() {
    return this.primary.inStatement;
  }

  get kind() {
    return this.primary.kind;
  }

  put(bytes: Buffer | AsyncIterable<Uint8Array>, opts: PutOptions): Promise<StoredObject> {
    return this.primary.put(bytes, opts);
  }

  async get(sha256: string, opts?: ReadOptions): Promise<Buffer> {
    try {
      return await this.primary.get(sha256, opts);
    } catch (e) {
      if (!(e instanceof StoreMissingError)) throw e;
      return this.fallback.get(sha256, opts);
    }
  }

  async stream(sha256: string, opts?: ReadOptions): Promise<AsyncIterable<Uint8Array>> {
    try {
      return await this.primary.stream(sha256, opts);
    } catch (e) {
      if (!(e instanceof StoreMissingError)) throw e;
      return this.fallback.stream(sha256, opts);
    }
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.primary.has(sha256)) || this.fallback.has(sha256);
  }

  /** The new store's only: the old one is the move's source, left as it is until it is retired. */
  delete(sha256: string): Promise<void> {
    return this.primary.delete(sha256);
  }

  list(opts?: ListOptions): AsyncIterable<ListedObject> {
    return this.primary.list(opts);
  }

  async removeLeftovers(olderThan: Date): Promise<number> {
    return (await this.primary.removeLeftovers?.(olderThan)) ?? 0;
  }

  removeUnreferenced(sha256s: string[], olderThan: Date, unreferenced: UnreferencedCheck): Promise<number | undefined> {
    return this.primary.removeUnreferenced?.(sha256s, olderThan, unreferenced) ?? Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close?.(), this.fallback.close?.()]);
  }
}
