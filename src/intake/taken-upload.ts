// How an upload's bytes are taken in (IntakeReceiver.takeUpload): a ZIP archive, the one kind of
// upload that may be large (ZIP_MAX_TOTAL_BYTES, 200 MB), streams into the document store as it
// arrives and is unpacked from there (stored-zip-source.ts), so a process holds one entry at a
// time, never the archive. A PDF (at most 5 MB) is held whole: it is checked whole on arrival
// (sniffPdf) and handed whole to this process's worker (staged-bytes-cache.ts). On the database
// driver everything is held, as the row's transaction writes the bytes.
import { isArchiveName } from '../domain/archive.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import { collect } from '../storage/store-bytes.ts';
import type { TakenUpload } from './intake-port.ts';

export async function takeUpload(
  store: Pick<DocumentStore, 'kind' | 'put'>,
  filename: string,
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<TakenUpload> {
  if (store.kind !== 'database' && isArchiveName(filename)) {
    const { sha256, size } = await store.put(body, { maxBytes });
    return { kind: 'stored', sha256, size };
  }
  return { kind: 'bytes', bytes: (await collect(body, maxBytes)).buffer };
}
