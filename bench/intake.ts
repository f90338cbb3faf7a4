// Intake benchmark: 1,000 PDFs of 100 KB through POST /v2/imports until every one is `attached`
// (files/s, received->attached p50/p99), against the lean reference in rounds alternating with it
// (lean-http-server.ts: a bare Fastify handler that stages the same body in PostgreSQL and
// enqueues it, with the lean worker that checks each file; the median of the rounds gives the
// ratio), against the same files attached directly with POST /v2/documents, and against
// PostgreSQL alone inserting them (the floor of staging them in the database). The service runs as
// `npm start` runs it (one process, roles api + worker); each side has its own database on the same
// PostgreSQL and its own prefix on the same private redis-server.
//
//   npm run bench:intake -- [--files 1000] [--size 102400] [--concurrency 32] [--rounds 3] [--rate 275] [--warmup 1000]
//                           [--store database|directory|s3] [--own-postgres] [--pin] [--young-store] [--unique-contents]
//
// --store picks the service's document store (s3: s3rver started here); every phase then prints
// the WAL bytes, the database's growth and the store's per file (store-kit.ts). --own-postgres
// runs every database on a PostgreSQL cluster of this run's own, so that the WAL is this run's.
// --pin (with --own-postgres): the servers on CPU 0, the client and s3rver on CPU 1 (cpu-pinning.ts).
// --unique-contents: bytes of its own for every file of every phase. Without, the phases reuse one
// set of --files contents, and the database store writes content it holds already as a renewal of
// its row only, where S3 and a directory write the bytes again (flattering the database store).
//
// Imports run as fast as the clients go (throughput; files queue up when they arrive
// faster than the workers attach them, so latency there is mostly time in the queue), then paced
// at --rate files/s (received->attached latency at that sustained load; 0 skips the run). The
// default offers the target of 250 files/s plus 10 %, so that keeping up shows headroom. The client
// (node:http in this process, each body built as bytes before the clock starts) prints its CPU
// share, to show it is not what limits the figures.
// SERVICE_NODE_ARGS adds node flags to the service process (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import {
  apiCaller,
  benchPdf,
  bodyPoster,
  buildService,
  cpuMs,
  pool,
  postgresCpuMeter,
  waitUntilReady,
  runBench,
  stopChild,
  storeInPostgres,
  benchServiceEnv,
} from './bench-kit.ts';
import { leanProgress, startLeanServer } from './lean-intake.ts';
import { printIntakeReport } from './intake-report.ts';
import { invoiceBody } from './invoice-body.ts';
import { intakeCounts, stagingGroups } from './service-readings.ts';
import { cpuPinning } from './cpu-pinning.ts';
import { benchPostgres, benchStore, storeMeter, storeName } from './store-kit.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(100 * 1024) },
    concurrency: { type: 'string', default: '32' },
    'worker-concurrency': { type: 'string', default: '8' },
    rate: { type: 'string', default: '275' },
    rounds: { type: 'string', default: '3' },
    // imports (not measured, at most --files) through the paths the rounds measure, each to a fresh
    // invoice, so that V8 has compiled them first, as in a service that has run a while
    warmup: { type: 'string', default: '1000' },
    store: { type: 'string', default: 'database' },
    'own-postgres': { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    'young-store': { type: 'boolean', default: false },
    'unique-contents': { type: 'boolean', default: false },
  },
});
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONCURRENCY = Number(values.concurrency);
const RATE = Number(values.rate);
const ROUNDS = Number(values.rounds);
const WARMUP = Math.min(Number(values.warmup), FILES);
/** CPU time of this process (the client) since `since`, in ms */
const clientMs = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
};
const SETTINGS = { FILES, CONCURRENCY, ROUNDS, RATE, workerConcurrency: values['worker-concurrency']! };
const pace = async (rate: number, t0: number, i: number) => {
  if (rate > 0) await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i * 1000) / rate - Date.now())));
};

async function main() {
  const pinning = cpuPinning(values.pin!, values['own-postgres']!);
  const redis = await startPrivateRedis();
  const pgs = await benchPostgres(values['own-postgres']!);
  const db = await pgs.create();
  const leanDb = await pgs.create();
  const lean = await startLeanServer('lean-http-server.ts', [leanDb.url, redis.url, 'iilean'], process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean));
  const port = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-'));
  const store = await benchStore(storeName(values.store), dataDir, values['young-store']);
  const service = spawn(process.execPath, buildService(), {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...benchServiceEnv({ port, databaseUrl: db.url, redisUrl: redis.url, adminToken, dataDir }),
      ROLES: 'api,worker',
      INTAKE_CONCURRENCY: values['worker-concurrency']!,
      ...store.env,
    },
  });
  pinning.serversStarted([store.pid()]);
  console.log(pinning.what);
  const sql = new pg.Client({ connectionString: db.url });
  const leanSql = new pg.Client({ connectionString: leanDb.url });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(async () => (await fetch(`${base}/healthz`)).ok);
    const call = apiCaller(base);

    const account = await call('POST', '/admin/accounts', adminToken, { name: 'bench' });
    const key = account.liveKey as string;
    const post = bodyPoster(base, key, CONCURRENCY);
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'B-1', name: 'Bench' });
    // invoices BENCH-0 .. for each round of imports at full speed, then the paced imports, then the documents
    const docInvoices: string[] = [];
    const DOCS = FILES * (ROUNDS + 1);
    await pool(DOCS + FILES, 16, async (i) => {
      const inv = await call('POST', '/v2/invoices', key, invoiceBody(customer.id, `BENCH-${i}`, '100.00'));
      if (i >= DOCS) docInvoices[i - DOCS] = inv.id;
    });
    const template = await benchPdf(SIZE);
    const contents = Array.from({ length: FILES }, (_, i) => Buffer.concat([template, Buffer.from(`\n% ${i}\n`)]).toString('base64'));
    const size = Buffer.from(contents[0], 'base64').length;
    /** file `i` of a phase whose files are numbered from `from` (phases apart): --unique-contents its own bytes, else contents[i] */
    const contentOf = (from: number, i: number) =>
      values['unique-contents'] ? Buffer.concat([template, Buffer.from(`\n% ${from + i}\n`)]).toString('base64') : contents[i];
    const [WARM_N, WARM_DOCS_N, LEAN_N] = [10_000_000, 20_000_000, 30_000_000];

    // warm-up of both paths (JIT, pools, threads), not measured: imports WARM-<i>.pdf to invoices
    // WARM-<i> and the same bodies to the reference, as the rounds send them; then direct documents
    const warm = await call('POST', '/v2/invoices', key, invoiceBody(customer.id, 'WARM', '1.00'));
    await pool(WARMUP, 16, (i) => call('POST', '/v2/invoices', key, invoiceBody(customer.id, `WARM-${i}`, '1.00')));
    const warmNames = Array.from({ length: WARMUP }, (_, i) => `WARM-${i}.pdf`);
    const warmBodies = warmNames.map((name, i) => Buffer.from(JSON.stringify({ Filename: name, Content: contentOf(WARM_N, i) })));
    await pool(WARMUP, CONCURRENCY, (i) => post('/v2/imports', warmBodies[i]));
    await pool(20, 8, (i) =>
      call('POST', '/v2/documents', key, {
        Invoice: warm.id,
        Filename: 'w.pdf',
        Mediatype: 'application/pdf',
        Content: contentOf(WARM_DOCS_N, (i * 11) % FILES),
      }),
    );
    const leanPost = bodyPoster(`http://127.0.0.1:${lean.port}`, 'none', CONCURRENCY);
    await pool(WARMUP, CONCURRENCY, (i) => leanPost('/imports', warmBodies[i]));
    await Promise.all([sql.connect(), leanSql.connect()]);
    for (let p = await leanProgress(leanSql, warmNames); p.pending > 0 || p.staged < WARMUP; p = await leanProgress(leanSql, warmNames))
      await new Promise((r) => setTimeout(r, 50));
    for (;;) {
      const [{ n }] = (await sql.query(`select count(*)::int as n from intake_records where status in ('received', 'waiting')`)).rows;
      if (n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    // CPU of the service process and of the PostgreSQL backends serving its database: a figure
    // that the other load on a shared machine does not distort as much as files/s
    const dbName = new URL(db.url).pathname.slice(1);
    /** CPU used during a phase by the service process and by PostgreSQL */
    const meter = (pid = service.pid!, name = dbName) => {
      const serviceStart = cpuMs([pid]);
      const pgCpu = postgresCpuMeter(sql, name);
      return async () => {
        const pg = await pgCpu();
        return { service: cpuMs([pid]) - serviceStart, pg };
      };
    };

    /** Files `first` .. `first + FILES - 1` through POST /v2/imports, at `rate` files/s (0: full speed), until all are attached. */
    const runImports = async (first: number, rate: number) => {
      const bodies = contents.map((_, i) => Buffer.from(JSON.stringify({ Filename: `BENCH-${first + i}.pdf`, Content: contentOf(first, i) })));
      const cpu = meter();
      const cost = await storeMeter(sql, store);
      const groups0 = await stagingGroups(base);
      const client0 = process.cpuUsage();
      const t0 = Date.now();
      await pool(FILES, CONCURRENCY, async (i) => {
        await pace(rate, t0, i);
        await post('/v2/imports', bodies[i]);
      });
      const uploadedMs = Date.now() - t0;
      for (;;) {
        const { pending, failed } = await intakeCounts(sql);
        if (failed > 0) throw new Error(`${failed} files failed`);
        if (pending === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const used = { ...(await cpu()), client: clientMs(client0) };
      const costs = await cost();
      const groups1 = await stagingGroups(base);
      const rows = (
        await sql.query(
          `select extract(epoch from s.received_at) * 1000 as received, extract(epoch from r.attached_at) * 1000 as attached
         from intake_records r join intake_staging s on s.id = r.id join invoices i on i.id = r.invoice_id
         where r.status = 'attached' and i.invoice_number = any($1)`,
          [Array.from({ length: FILES }, (_, i) => `BENCH-${first + i}`)],
        )
      ).rows;
      if (rows.length !== FILES) throw new Error(`expected ${FILES} attached, found ${rows.length}`);
      const lastAttached = Math.max(...rows.map((r) => Number(r.attached)));
      return {
        rate: FILES / ((lastAttached - t0) / 1000),
        seconds: (lastAttached - t0) / 1000,
        uploadedMs,
        latencies: rows.map((r) => Number(r.attached) - Number(r.received)).sort((a, b) => a - b),
        cpu: used,
        costs,
        groups: { count: groups1.count - groups0.count, files: groups1.files - groups0.files },
      };
    };

    /** The same bodies (named LEAN-<round>-<i>) to the lean reference, full speed, until every one is done. */
    const runLean = async (r: number) => {
      const names = contents.map((_, i) => `LEAN-${r}-${i}.pdf`);
      const bodies = contents.map((_, i) => Buffer.from(JSON.stringify({ Filename: names[i], Content: contentOf(LEAN_N + r * FILES, i) })));
      const cpu = meter(lean.proc.pid!, new URL(leanDb.url).pathname.slice(1));
      const client0 = process.cpuUsage();
      const t0 = Date.now();
      await pool(FILES, CONCURRENCY, (i) => leanPost('/imports', bodies[i]));
      let p = await leanProgress(leanSql, names);
      for (; p.pending > 0 || p.staged < FILES; p = await leanProgress(leanSql, names)) await new Promise((res) => setTimeout(res, 20));
      if (p.failed > 0) throw new Error(`the reference failed ${p.failed} files`);
      return { rate: FILES / ((p.lastDone - t0) / 1000), cpu: { ...(await cpu()), client: clientMs(client0) } };
    };

    // 1. POST /v2/imports -> attached and the reference, full speed, alternating which goes first; then imports paced
    const floods: Awaited<ReturnType<typeof runImports>>[] = [];
    const leans: Awaited<ReturnType<typeof runLean>>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) floods.push(await runImports(r * FILES, 0)), leans.push(await runLean(r));
      else leans.push(await runLean(r)), floods.push(await runImports(r * FILES, 0));
      // CPU a file of every round, not only the median's: the figure to compare A/B runs by on a loaded machine
      const cpuOf = (x: { service: number; pg: number }) =>
        `${((x.service + x.pg) / FILES).toFixed(1)} (${(x.service / FILES).toFixed(1)} + ${(x.pg / FILES).toFixed(1)})`;
      console.log(
        `round ${r + 1}: imports ${floods[r].rate.toFixed(1)} attached/s, reference ${leans[r].rate.toFixed(1)} done/s, ratio ${(floods[r].rate / leans[r].rate).toFixed(2)}; CPU a file ${cpuOf(floods[r].cpu)} against ${cpuOf(leans[r].cpu)} ms; load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
    leanPost.close();
    const paced = RATE > 0 ? await runImports(FILES * ROUNDS, RATE) : undefined;
    const check = (
      await sql.query(
        `select count(*)::int as n from documents d join invoices i on i.id = d.invoice_id where i.invoice_number like 'BENCH-%' and d.deleted_at is null and d.source = 'http'`,
      )
    ).rows[0].n;
    const imported = FILES * (ROUNDS + (paced ? 1 : 0));
    if (check !== imported) throw new Error(`expected ${imported} documents from imports, found ${check}`);

    // 2. the same files straight to POST /v2/documents, full speed
    const docLat: number[] = [];
    const docBodies = contents.map((_, i) =>
      Buffer.from(JSON.stringify({ Invoice: docInvoices[i], Filename: `BENCH-${DOCS + i}.pdf`, Mediatype: 'application/pdf', Content: contentOf(DOCS, i) })),
    );
    const docMeter = meter();
    const docCost = await storeMeter(sql, store);
    const docClient0 = process.cpuUsage();
    const t1 = Date.now();
    await pool(FILES, CONCURRENCY, async (i) => {
      const s = performance.now();
      await post('/v2/documents', docBodies[i]);
      docLat.push(performance.now() - s);
    });
    const docSeconds = (Date.now() - t1) / 1000;
    post.close();
    const docCpu = { ...(await docMeter()), client: clientMs(docClient0) };
    const docCosts = await docCost();
    docLat.sort((a, b) => a - b);

    // 3. what PostgreSQL alone takes to store the same files, the floor of staging them there
    const floor = await storeInPostgres(
      db.url,
      contents.map((c) => Buffer.from(c, 'base64')),
      8,
    );

    printIntakeReport(SETTINGS, { floods, leans, paced, docSeconds, docLat, docCpu, docCosts, floor, size, store: store.kind, postgres: pgs.what });
  } finally {
    await Promise.all([sql.end(), leanSql.end()].map((p) => p.catch(() => {})));
    await Promise.all([stopChild(service), stopChild(lean.proc)]);
    await Promise.all([db.drop(), leanDb.drop()]);
    await Promise.all([redis.stop(), store.stop()]);
    await pgs.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
