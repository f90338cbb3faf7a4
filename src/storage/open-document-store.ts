// The document store the configuration names (DOCUMENT_STORE), with the time-out on every call.
import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseStore } from './database-store.ts';
import { DirectoryStore } from './directory-store.ts';
import type { DocumentStore, StoreKind } from './document-store.ts';
import { TimedStore } from './timed-store.ts';
import { S3DocumentStore } from './s3-document-store.ts';
import { FallbackStore } from './fallback-store.ts';

type StoreConfig = Pick<
  Config,
  | 'documentStore'
  | 'documentStoreFallback'
  | 'documentStoreDir'
  | 'documentStoreTimeoutMs'
  | 's3Endpoint'
  | 's3Bucket'
  | 's3Prefix'
  | 's3Region'
  | 's3ForcePathStyle'
>;

/** The driver alone, without time-outs (tests and `move-documents` name the kind). */
async function openDriver(kind: StoreKind, config: StoreConfig, db: Database): Promise<DocumentStore> {
  switch (kind) {
    case 'database':
      return new DatabaseStore(db);
    case 'directory':
      return DirectoryStore.open(config.documentStoreDir!);
    case 's3':
      return new S3DocumentStore({
        endpoint: config.s3Endpoint,
        bucket: config.s3Bucket!,
        prefix: config.s3Prefix,
        region: config.s3Region,
        forcePathStyle: config.s3ForcePathStyle,
        timeoutMs: config.documentStoreTimeoutMs,
      });
  }
}

/** `kind` alone (move-documents names its source and target), or the service's store: DOCUMENT_STORE, reading through to DOCUMENT_STORE_FALLBACK during a move. */
export async function openDocumentStore(config: StoreConfig, db: Database, kind?: StoreKind): Promise<DocumentStore> {
  const timed = async (k: StoreKind) => new TimedStore(await openDriver(k, config, db), config.documentStoreTimeoutMs);
  if (kind) return timed(kind);
  const store = await timed(config.documentStore);
  return config.documentStoreFallback ? new FallbackStore(store, await timed(config.documentStoreFallback)) : store;
}
