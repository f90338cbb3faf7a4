// The document store of a test's service: TEST_STORE picks the driver (vitest.config.ts runs the
// chosen API, intake and channel files once per driver, as the API files run on PGlite and
// PostgreSQL). Each call gives a fresh store: a new directory, a new bucket prefix.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../src/config/config.ts';
import type { StoreKind } from '../../src/storage/document-store.ts';

function testStoreKind(): StoreKind {
  const kind = process.env.TEST_STORE ?? 'database';
  if (kind !== 'database' && kind !== 'directory' && kind !== 's3') throw new Error(`TEST_STORE must be database, directory or s3, got ${kind}`);
  return kind;
}

/** The settings of a fresh store of `kind` (the database driver needs none). */
export function testStoreConfig(kind = testStoreKind()): Partial<Config> {
  switch (kind) {
    case 'database':
      return {};
    case 'directory':
      return { documentStore: 'directory', documentStoreDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-store-')) };
    case 's3': {
      // the store-s3 project's s3rver (test/helpers/s3-global-setup.ts)
      const endpoint = process.env.TEST_S3_ENDPOINT;
      if (!endpoint) throw new Error('TEST_STORE=s3 needs TEST_S3_ENDPOINT: run the store-s3 project (its global set-up starts s3rver)');
      return {
        documentStore: 's3',
        s3Endpoint: endpoint,
        s3Bucket: process.env.TEST_S3_BUCKET,
        s3Prefix: `t-${randomUUID()}/`,
        s3Region: 'us-east-1',
        s3ForcePathStyle: true,
      };
    }
  }
}

/** The same store as `config`'s: another node or process of one installation shares it. */
export const sameStore = (config: Config): Partial<Config> => ({
  documentStore: config.documentStore,
  documentStoreDir: config.documentStoreDir,
  s3Endpoint: config.s3Endpoint,
  s3Bucket: config.s3Bucket,
  s3Prefix: config.s3Prefix,
  s3Region: config.s3Region,
  s3ForcePathStyle: config.s3ForcePathStyle,
});
