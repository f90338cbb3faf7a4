// `npm run admin -- move-documents` under a running service with files arriving (issue 46):
// database -> s3 -> database, each move done as docs/operations.md says (move, restart on the new
// store reading through to the old one, move the tail, restart on the new store alone). Every
// acknowledged file ends attached once, and every object a row names is in the final store,
// hashing to its name; a document is downloadable after each step.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { ROOT } from '../../testkit/paths.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { startS3Server, type S3Server } from '../../testkit/s3-server.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { pollFor, sleep } from '../../testkit/wait.ts';

const run = promisify(execFile);
let s3: S3Server;
let redis: PrivateRedis;
let db: { url: string; drop(): Promise<void> };
let sql: pg.Pool;
let service: ServiceProcess | undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-move-'));
const adminToken = `adm_${randomToken(24)}`;
let base: Record<string, string>;

beforeAll(async () => {
  [s3, redis, db] = await Promise.all([startS3Server(), startPrivateRedis(), createPgDatabase()]);
  sql = new pg.Pool({ connectionString: db.url, max: 2 });
  // every setting of both stores, as the service and the command have them; DOCUMENT_STORE picks one
  base = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iimove${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: dataDir,
    RATE_LIMIT_MAX: '1000000',
    INTAKE_BACKOFF_MS: '200',
    INTAKE_BACKOFF_MAX_MS: '1000',
    ...s3.env(`move-${randomUUID()}/`),
  };
}, 120_000);
afterAll(async () => {
  service?.signal('SIGKILL');
  await service?.exited;
  await sql?.end();
  await Promise.all([s3?.destroy(), redis?.stop()]);
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** (Re)starts the service on `store` (and `fallback`): api and worker in one process, on the same port each time. */
let port = '0';
async function startOn(store: string, fallback?: string): Promise<string> {
  if (service) {
    service.signal('SIGTERM');
    await service.exited;
  }
  service = spawnService(['api', 'worker'], { ...base, PORT: port, DOCUMENT_STORE: store, ...(fallback ? { DOCUMENT_STORE_FALLBACK: fallback } : {}) });
  const url = await service.url();
  port = new URL(url).port;
  return url;
}

async function move(store: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'move-documents', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...base, DOCUMENT_STORE: store, LOG_LEVEL: 'warn' },
    timeout: 120_000,
  });
  return stdout;
}

it('refuses what it cannot do before it opens anything: an unknown store, a target without its settings', async () => {
  const usage = async (env: Record<string, string>, ...args: string[]) => {
    const err = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'move-documents', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...env },
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(err?.code).toBe(2);
    return err.stderr as string;
  };
  expect(await usage({}, '--to', 'tape')).toMatch(/--to takes database, directory or s3, not "tape"/);
  expect(await usage({}, '--to', 'directory')).toMatch(/the directory store needs DOCUMENT_STORE_DIR/);
});

it('database -> s3 -> database while files arrive: nothing lost, every object in the final store and verified', async () => {
  let url = await startOn('database');
  const call = (method: string, p: string, key: string, body?: unknown) => httpClient(url)(method, p, { key, body });
  const account = await call('POST', '/admin/accounts', adminToken, { name: 'mover' });
  const key: string = account.body.liveKey;
  const customer = await call('POST', '/v2/customers', key, { customerCode: 'M-1', name: 'Mover BV' });
  // a client sending a file at a time all along, resending (same Idempotency-Key) across restarts
  const acknowledged: { number: string; sha256: string }[] = [];
  let sending = true;
  const sender = (async () => {
    for (let i = 0; sending; i++) {
      const number = `MOVE-${i}`;
      const bytes = await makePdf(`Invoice ${number}`);
      for (;;) {
        try {
          const inv = await httpClient(url)('POST', '/v2/invoices', {
            key,
            body: { customer: customer.body.id, invoiceNumber: number, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
            headers: { 'idempotency-key': `inv-${number}` },
          });
          if (inv.status !== 201) throw new Error(`invoice ${inv.status} ${JSON.stringify(inv.body)}`);
          const res = await httpClient(url)('POST', '/v2/imports', {
            key,
            body: { Filename: `${number}.pdf`, Content: bytes.toString('base64') },
            headers: { 'idempotency-key': `imp-${number}` },
          });
          if (res.status === 202) break;
          if (res.status !== 503) throw new Error(`import ${number}: ${res.status} ${JSON.stringify(res.body)}`);
        } catch (e) {
          if (!/ECONNREFUSED|ECONNRESET|socket|invoice 5\d\d/i.test(`${(e as Error).message} ${(e as NodeJS.ErrnoException).code}`)) throw e;
        }
        await sleep(100); // a client's pause before it sends again
      }
      acknowledged.push({ number, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
  })();
  const arrived = (n: number) =>
    pollFor(
      () => acknowledged.length,
      (c) => c >= n,
      { ms: 120_000, everyMs: 50 },
    );
  const download = async () => {
    const [{ id }] = (await sql.query(`select id from documents order by created_at desc limit 1`)).rows;
    const res = await fetch(`${url}/v2/documents/${id}/content`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  };

  await arrived(10);
  for (const [from, to] of [
    ['database', 's3'],
    ['s3', 'database'],
  ]) {
    expect(await move(from, ['--to', to])).toMatch(new RegExp(`Done: every object rows point at is in ${to}`));
    await arrived(acknowledged.length + 3); // into the old store after the pass: the tail
    url = await startOn(to, from);
    await arrived(acknowledged.length + 5); // files arrive into the new store while the tail is still in the old one
    await download();
    const tail = await move(to, ['--from', from, '--to', to]);
    expect(Number(/ (\d+) copied and verified/.exec(tail)?.[1]), tail).toBeGreaterThanOrEqual(3);
    expect(tail).toMatch(new RegExp(`Done: every object rows point at is in ${to}`));
    url = await startOn(to);
    await arrived(acknowledged.length + 3);
    await download();
  }
  sending = false;
  await sender;

  const names = acknowledged.map((f) => `${f.number}.pdf`);
  const attached = await pollFor(
    async () =>
      (
        await sql.query(
          `select count(*)::int as n from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached' and s.filename = any($1)`,
          [names],
        )
      ).rows[0].n,
    (n) => n === acknowledged.length,
    { ms: 120_000, everyMs: 250 },
  );
  expect(attached).toBe(acknowledged.length);
  const docs = await sql.query(
    `select i.invoice_number as number, count(*)::int as n, min(d.content_sha256) as sha from documents d join invoices i on i.id = d.invoice_id where i.invoice_number like 'MOVE-%' group by 1`,
  );
  const byNumber = new Map(docs.rows.map((r) => [r.number, r]));
  for (const f of acknowledged) expect([f.number, byNumber.get(f.number)?.n, byNumber.get(f.number)?.sha]).toEqual([f.number, 1, f.sha256]);
  // every object a row names is in the final store (the database's table) with bytes that hash to its name
  const missing = await sql.query(`select s.content_sha256 as sha from intake_staging s where s.content_sha256 is not null
    and not exists (select 1 from document_objects o where o.sha256 = s.content_sha256 and encode(sha256(o.content), 'hex') = o.sha256)`);
  expect(missing.rows).toEqual([]);
  expect(service!.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
}, 600_000);
