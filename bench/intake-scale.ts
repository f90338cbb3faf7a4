// Intake scale-out benchmark: the same 1,000 files of 100 KB through POST /v2/imports to
// `attached`, once with 1 worker process and once with 2, each run on a fresh PostgreSQL
// database and a private Redis, with the API in its own process. Two measures per run:
// - live: uploads and workers at once; files/s from the first upload to the last attach;
// - drain: the workers are up and idle with the queue paused while the files are uploaded; then
//   the queue is resumed; files/s from the resume to the last attach: the workers alone, with
//   no uploads and no start-up competing for the CPU.
// Prints files/s per run, the CPU per file of the worker processes and of PostgreSQL, and the
// ratios (2 workers / 1 worker).
//
//   npm run bench:intake-scale -- [--files 1000] [--size 102400] [--concurrency 32] [--workers 1,2] [--mode live,drain]
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { queuePrefix } from '../src/queue/job-definition.ts';
import { randomToken } from '../src/domain/ids.ts';
import { makePdf } from '../testkit/pdf.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../testkit/service-process.ts';
import { apiCaller, bodyPoster, buildService, cpuMs, pool, postgresCpuMeter } from './bench-kit.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(100 * 1024) },
    concurrency: { type: 'string', default: '32' },
    workers: { type: 'string', default: '1,2' },
    'worker-concurrency': { type: 'string', default: '8' },
    mode: { type: 'string', default: 'live,drain' },
  },
});
type Mode = 'live' | 'drain';
const MODES = values.mode!.split(',') as Mode[];
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONCURRENCY = Number(values.concurrency);
const WORKER_COUNTS = values.workers!.split(',').map(Number);

interface RunResult {
  mode: Mode;
  workers: number;
  filesPerSecond: number;
  uploadSeconds: number;
  totalSeconds: number;
  p50: number;
  p99: number;
  /** CPU per file (ms) of the worker processes and of PostgreSQL, from the resume (drain) or the first upload (live) to the last attach */
  cpu: { workers: number; pg: number };
}

async function run(mode: Mode, workers: number, pdfs: Buffer[]): Promise<RunResult> {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const adminToken = `adm_${randomToken(24)}`;
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iibench${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: `/tmp/ii-bench-${randomToken(6)}`,
    LOG_LEVEL: 'warn',
    INTAKE_CONCURRENCY: values['worker-concurrency']!,
    RATE_LIMIT_MAX: '1000000',
  };
  const procs: ServiceProcess[] = [];
  const client = new pg.Client({ connectionString: db.url });
  try {
    const api = spawnService(['api'], { ...env, LOG_LEVEL: 'info' }, { build: 'dist' });
    procs.push(api);
    const base = await api.url();
    const startWorkers = async () => {
      for (let i = 0; i < workers; i++) procs.push(spawnService(['worker'], { ...env, LOG_LEVEL: 'info' }, { build: 'dist' }));
      await Promise.all(procs.slice(1).map((p) => p.waitForLog((l) => l.msg === 'intake workers started', 180_000)));
    };
    await startWorkers();
    // drain: the workers wait on a paused queue until every file is in
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new Queue('intake', { connection, prefix: queuePrefix({ redisPrefix: env.REDIS_PREFIX }) });
    if (mode === 'drain') await queue.pause();

    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'bench' });
    const key = account.liveKey as string;
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'B-1', name: 'Bench' });
    const numbers: string[] = [];
    await pool(FILES, 16, async (i) => {
      const n = `BENCH-${i}`;
      await call('POST', '/v2/invoices', key, {
        customer: customer.id,
        invoiceNumber: n,
        invoiceDate: '01-02-2026',
        invoiceDuedate: '01-03-2026',
        invoiceTotal: '100.00',
      });
      numbers[i] = n;
    });
    const post = bodyPoster(base, key, CONCURRENCY);
    const bodies = pdfs.map((b, i) => Buffer.from(JSON.stringify({ Filename: `${numbers[i]}.pdf`, Content: b.toString('base64') })));

    await client.connect();
    const workerPids = procs.slice(1).map((p) => p.proc.pid!);
    const dbName = new URL(db.url).pathname.slice(1);
    let pgMeter = postgresCpuMeter(client, dbName);
    let workers0 = cpuMs(workerPids);
    const t0 = performance.now();
    await pool(FILES, CONCURRENCY, (i) => post('/v2/imports', bodies[i]));
    const uploaded = performance.now();
    post.close();
    if (mode === 'drain') {
      await pgMeter(); // the uploads' share is not the workers'
      pgMeter = postgresCpuMeter(client, dbName);
      workers0 = cpuMs(workerPids);
      await queue.resume();
    }
    const resumed = performance.now();
    await queue.close();
    connection.disconnect();
    for (;;) {
      const [{ attached, failed }] = (
        await client.query(
          `select count(*) filter (where status = 'attached')::int as attached, count(*) filter (where status = 'failed')::int as failed from intake_records`,
        )
      ).rows;
      if (failed > 0) throw new Error(`${failed} files failed`);
      if (attached >= FILES) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = performance.now();
    const cpu = { workers: (cpuMs(workerPids) - workers0) / FILES, pg: (await pgMeter()) / FILES };
    const lat = (
      await client.query(
        `select extract(epoch from (t.attached_at - s.received_at)) * 1000 as ms from intake_records t join intake_staging s on s.id = t.id order by 1`,
      )
    ).rows.map((r) => Number(r.ms));
    return {
      mode,
      workers,
      filesPerSecond: FILES / ((done - (mode === 'live' ? t0 : resumed)) / 1000),
      uploadSeconds: (uploaded - t0) / 1000,
      totalSeconds: (done - t0) / 1000,
      p50: lat[Math.floor(lat.length * 0.5)],
      p99: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))],
      cpu,
    };
  } finally {
    await client.end().catch(() => {});
    for (const p of procs) p.signal('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await redis.stop();
    await db.drop();
  }
}

buildService();
const pdfs = await Promise.all(Array.from({ length: FILES }, (_, i) => makePdf(`Invoice BENCH-${i}`, SIZE)));
console.log(
  `intake scale-out: ${FILES} files of ${(SIZE / 1024).toFixed(0)} KB via POST /v2/imports, ${CONCURRENCY} concurrent uploads, INTAKE_CONCURRENCY=${values['worker-concurrency']} per worker; load average before: ${(
    await import('node:os')
  )
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const mode of MODES) {
  const results: RunResult[] = [];
  for (const w of WORKER_COUNTS) {
    const r = await run(mode, w, pdfs);
    results.push(r);
    const detail =
      mode === 'live'
        ? `uploads done in ${r.uploadSeconds.toFixed(1)} s, all attached in ${r.totalSeconds.toFixed(1)} s, received->attached p50 ${r.p50.toFixed(0)} ms p99 ${r.p99.toFixed(0)} ms`
        : `queue filled while paused, then resumed: all attached ${r.totalSeconds.toFixed(1)} s after the first upload`;
    console.log(
      `${mode}: ${w} worker process(es): ${r.filesPerSecond.toFixed(1)} files/s attached (${detail}); CPU per file: the workers ${r.cpu.workers.toFixed(1)} ms, PostgreSQL ${r.cpu.pg.toFixed(1)} ms${mode === 'live' ? ' (with the uploads)' : ''}`,
    );
  }
  if (results.length >= 2)
    console.log(`${mode}: ratio ${results[1].workers} / ${results[0].workers} workers: ${(results[1].filesPerSecond / results[0].filesPerSecond).toFixed(2)}`);
}
