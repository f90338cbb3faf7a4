// A received file's bytes go into the document store before its row is written: the row that
// points at them commits only once they are durable, so it never points at a missing object.
import type { DocumentStore } from '../storage/document-store.ts';
import type { NewImport } from './intake-repository.ts';

/** `f` with its bytes stored (contentSha256 set); a file without bytes (refused at once) as it is. */
export async function putStaged(store: Pick<DocumentStore, 'put'>, f: NewImport): Promise<NewImport> {
  if (!f.content || f.contentSha256) return f; // refused at once, or stored already
  // the channel held the file whole and enforced its limit already
  const { sha256 } = await store.put(f.content, { maxBytes: f.content.length });
  return { ...f, contentSha256: sha256 };
}
