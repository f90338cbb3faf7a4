// Every driver of the document store keeps one contract (store-contract.ts): one line per driver.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DatabaseStore } from '../../src/storage/database-store.ts';
import { DirectoryStore } from '../../src/storage/directory-store.ts';
import { S3DocumentStore } from '../../src/storage/s3-document-store.ts';
import { TimedStore } from '../../src/storage/timed-store.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { storeContract, type StoreHarness } from './store-contract.ts';

// one migrated database per kind for the file (migrating PGlite takes seconds); each case starts on an empty table
const databases = new Map<string, Promise<Database>>();
afterAll(async () => Promise.all([...databases.values()].map(async (db) => (await db).close())));

async function onDatabase(kind: 'pglite' | 'postgres'): Promise<StoreHarness> {
  if (!databases.has(kind))
    databases.set(
      kind,
      openTestDatabase(kind).then(async (db) => (await migrate(db), db)),
    );
  const db = await databases.get(kind)!;
  await db.query('truncate document_objects');
  return { store: new DatabaseStore(db), close: async () => {} };
}

async function inDirectory(): Promise<StoreHarness> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-store-'));
  return { store: await DirectoryStore.open(root), close: async () => fs.rmSync(root, { recursive: true, force: true }) };
}

// one s3rver process for the file, started by the first S3 case; each case has a prefix of its own
let s3: Promise<S3Server> | undefined;
afterAll(async () => (await s3)?.destroy());

async function onS3(): Promise<StoreHarness> {
  Object.assign(process.env, S3RVER_CREDENTIALS); // the SDK's default credential chain reads them
  const server = await (s3 ??= startS3Server());
  const store = new S3DocumentStore({
    endpoint: server.endpoint,
    bucket: server.bucket,
    prefix: `contract-${randomUUID()}`,
    region: 'us-east-1',
    forcePathStyle: true,
    timeoutMs: 10_000,
  });
  return { store, close: () => store.close() };
}

/** The time-outs' wrapper keeps the contract of what it wraps. */
const timed = (open: () => Promise<StoreHarness>) => async (): Promise<StoreHarness> => {
  const h = await open();
  return { ...h, store: new TimedStore(h.store, 10_000) };
};

storeContract('database on PGlite', () => onDatabase('pglite'));
storeContract('database on PostgreSQL', () => onDatabase('postgres'));
storeContract('directory', inDirectory);
storeContract('directory, timed', timed(inDirectory));
storeContract('s3 (s3rver)', onS3);
