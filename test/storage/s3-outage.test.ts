// The S3 store killed and started again mid-flow (issue 46): files arrive by HTTP and explicit
// FTPS at an installation on DOCUMENT_STORE=s3 (s3rver, its own process), roles split over
// processes (test/ops/engine-flow.ts). While the store is away clients get 503 with Retry-After
// or FTP 451, never a 500 nor a permanent refusal; after it is back every acknowledged file is
// attached once with its bytes, and the sweep (grace 0, once the flow is over) leaves no object
// that no row points at, and every object a row points at is there.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/postgres.ts';
import { ObjectReferenceRepository } from '../../src/repositories/object-reference-repository.ts';
import { DocumentSweep } from '../../src/services/document-sweep.ts';
import { S3DocumentStore } from '../../src/storage/s3-document-store.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { pollFor } from '../../testkit/wait.ts';
import { expectOnlyRetryable, startFlow, type Flow } from '../ops/engine-flow.ts';
import { verify, waitAttached } from '../ops/multi-process-checks.ts';

let s3: S3Server;
let redis: PrivateRedis;
let db: { url: string; drop(): Promise<void> };
let flow: Flow;
let sql: pg.Pool;
const prefix = `outage-${randomUUID()}/`;

beforeAll(async () => {
  [s3, redis, db] = await Promise.all([startS3Server(), startPrivateRedis(), createPgDatabase()]);
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  // a store call gives up after 2 s: the outage shows as 503 / 451 quickly, not after 30 s
  flow = await startFlow({ env: { DATABASE_URL: db.url, REDIS_URL: redis.url, ...s3.env(prefix), DOCUMENT_STORE_TIMEOUT_MS: '2000' } });
}, 240_000);
afterAll(async () => {
  await flow?.stop();
  await sql?.end();
  await Promise.all([s3?.destroy(), redis?.stop()]);
  await db?.drop();
});

const received = async () => (await sql.query<{ n: number }>('select count(*)::int as n from intake_records')).rows[0].n;

it('s3 killed mid-flow: 503 + Retry-After and FTP 451 while away; after its restart 0 lost, 0 twice, no orphan after the sweep', async () => {
  const files = await flow.makeFiles('S3X', 60, ['http', 'ftp']);
  const sending = Promise.all([
    flow.sendHttp(
      files.filter((f) => f.channel === 'http'),
      3,
    ),
    flow.sendFtps(
      files.filter((f) => f.channel === 'ftp'),
      3,
    ),
  ]);
  await pollFor(received, (n) => n >= 15, { ms: 120_000, everyMs: 50 });
  await s3.kill();
  // away until both channels have refused a file for it (clients retry on their own, as real ones do)
  const refused = await pollFor(
    () => ({ http: flow.httpAnswers.filter((a) => a.status === 503).length, ftp: flow.ftpCodes.filter((c) => c === 451).length }),
    (r) => r.http > 0 && r.ftp > 0,
    { ms: 60_000, everyMs: 100 },
  );
  expect(refused.http, 'an HTTP import refused with 503 while S3 was away').toBeGreaterThan(0);
  expect(refused.ftp, 'an FTPS upload refused with 451 while S3 was away').toBeGreaterThan(0);
  await s3.start();
  await sending;
  await waitAttached(sql, files);
  const { duplicates } = await verify(sql, files);
  expect(duplicates).toBe(0);
  expectOnlyRetryable(flow);
  for (const a of flow.httpAnswers.filter((x) => x.status === 503)) expect(Number(a.retryAfter)).toBeGreaterThan(0);
  for (const [name, p] of flow.processes) {
    expect(p.proc.exitCode, `${name} exited: ${p.stderr.join('')}`).toBeNull();
    expect(
      p.logs.filter((l) => l.msg === 'unhandled error'),
      name,
    ).toEqual([]);
  }

  // the sweep with no grace, now that nothing is in flight: what stays is exactly what rows point at
  Object.assign(process.env, S3RVER_CREDENTIALS);
  const store = new S3DocumentStore({ endpoint: s3.endpoint, bucket: s3.bucket, prefix, region: 'us-east-1', forcePathStyle: true, timeoutMs: 10_000 });
  const database = openPostgres(db.url, { poolSize: 2 });
  try {
    const objects = new ObjectReferenceRepository();
    await new DocumentSweep(database, { objects }, store, { graceMs: 0, fullIntervalMs: 0 }).run(Date.now() + 1000);
    expect(await store.removeLeftovers(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(0);
    const kept: string[] = [];
    for await (const o of store.list()) kept.push(o.sha256);
    expect(await objects.unreferenced(database, kept), 'objects no row points at').toEqual([]);
    const pointed = await objects.referenced(database, '', 100_000);
    expect(
      pointed.filter((sha) => !kept.includes(sha)),
      'rows pointing at a missing object',
    ).toEqual([]);
    for (const f of files) expect(kept, `${f.number}'s bytes`).toContain(f.sha256);
  } finally {
    await store.close();
    await database.close();
  }
}, 300_000);
