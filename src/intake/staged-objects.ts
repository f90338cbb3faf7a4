// A received file's bytes go into the document store before its row is written: the row that
// points at them commits only once they are durable, so it never points at a missing object. With
// the database store they are written by the row's own statement instead (the same commit).
import type { DocumentStore } from '../storage/document-store.ts';
import type { NewImport } from './intake-repository.ts';

/**
 * `f` with its bytes stored (contentSha256 set); a file without bytes (refused at once) as it is.
 * `inStatement`: the caller's next statement stages the row, so with a store whose objects are
 * database rows the bytes go in that statement (contentPending) instead of a put of their own.
 */
export async function putStaged(store: Pick<DocumentStore, 'put' | 'inStatement'>, f: NewImport, opts: { inStatement?: boolean } = {}): Promise<NewImport> {
  if (!f.content || f.contentSha256) return f; // refused at once, or stored already
  // f.sha256 is the SHA-256 of f.content (new-import.ts): the key the store would have computed
  if (opts.inStatement && store.inStatement) return { ...f, contentSha256: f.sha256, contentPending: true };
  // the channel held the file whole and enforced its limit already; the store need not hash it again
  const { sha256 } = await store.put(f.content, { maxBytes: f.content.length, knownSha256: f.sha256 });
  return { ...f, contentSha256: sha256 };
}
