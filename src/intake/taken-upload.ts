// How an upload's bytes are taken in (IntakeReceiver.takeUpload): a ZIP archive, the one kind of
// upload that may be large (ZIP_MAX_TOTAL_BYTES, 200 MB), streams into the document store as it
// arrives and is unpacked from there (stored-zip-source.ts), so a process holds one entry at a
// time, never the archive. So does a temporary upload (`x.zip.filepart`, `.in.x.pdf`), which
// waits for its rename as a stored object (held-uploads.ts): renamed to a `.zip` name it is
// received where it lies, to another final name it is read back (readBack, at most 5 MB). A PDF
// (at most 5 MB) is held whole: it is checked whole on arrival (sniffPdf) and handed whole to this
// process's worker (staged-bytes-cache.ts). On the database driver everything is held, as the
// row's transaction writes the bytes.
import { isArchiveName } from '../domain/archive.ts';
import { MAX_DOCUMENT_BYTES } from '../domain/document-facts.ts';
import { DomainError } from '../domain/errors.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import { collect } from '../storage/store-bytes.ts';
import type { TakenUpload } from './intake-port.ts';

export async function takeUpload(
  store: Pick<DocumentStore, 'kind' | 'put'>,
  filename: string,
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  opts: { temporary?: boolean } = {},
): Promise<TakenUpload> {
  if (store.kind !== 'database' && (opts.temporary || isArchiveName(filename))) {
    const { sha256, size } = await store.put(body, { maxBytes });
    return { kind: 'stored', sha256, size };
  }
  return { kind: 'bytes', bytes: (await collect(body, maxBytes)).buffer };
}

/** The bytes of a stored upload received under a name that is not an archive's (a renamed temporary upload). */
export async function readBack(store: Pick<DocumentStore, 'get'>, filename: string, upload: { sha256: string; size: number }): Promise<Buffer> {
  // the channel refuses this before (transfer-directory.ts); here so that nothing large is ever read whole
  if (upload.size > MAX_DOCUMENT_BYTES) throw DomainError.invalid(`${filename} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return store.get(upload.sha256);
}
