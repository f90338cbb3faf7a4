// Acknowledgements under full worker load: how long `POST /v2/imports` takes to answer and an FTPS
// upload to get its `226` while the service's workers, on the same cores, check real e-invoices and
// render real XML e-invoices (../shared/corpora: hybrid PDFs and standalone XML) as fast as they go.
// The service runs as `npm start` runs it (one process, roles api + worker + ftp, PostgreSQL).
//
//   npm run bench:acknowledgements -- [--seconds 30] [--http-clients 3] [--ftps-clients 1] [--backlog 60] [--nice 0,10,19] [--threads 1]
//
// Each setting starts its own service (fresh database and Redis prefix) and measures twice:
// - idle: the clients alone, the intake queue paused (the reference: what an acknowledgement costs
//   with nothing else to do);
// - loaded: the queue resumed, what the idle round received is the workers' backlog, and a feeder
//   keeps at least --backlog real files queued (printed at start and end: it must never reach 0),
//   while the same clients send again.
// --nice lists the PDF check threads' nice values to compare (PDF_CHECK_PRIORITY; 0 is the pool as
// it was, at the service's own priority), --threads their count (PDF_CHECK_THREADS). Clients are worker threads of this process (one connection
// each, one file after the other); the figures are p50/p90/p99/max per channel, the client's CPU
// and the load average beside each.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, QueueEvents } from 'bullmq';
import pg from 'pg';
import { queuePrefix } from '../src/queue/job-definition.ts';
import { randomToken } from '../src/domain/ids.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { apiCaller, benchServiceEnv, buildService, cpuMs, ms, pct, runBench, stopChild, waitUntilReady } from './bench-kit.ts';
import { canConnect, sleep } from './ftp-kit.ts';
import { corpus, postJson, startClient, threadNices, type CorpusFile } from './ack-kit.ts';
import { selfSignedCert } from './self-signed.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    'http-clients': { type: 'string', default: '3' },
    'ftps-clients': { type: 'string', default: '1' },
    backlog: { type: 'string', default: '60' },
    nice: { type: 'string', default: '0,10,19' },
    threads: { type: 'string', default: '1' },
  },
});
const SECONDS = Number(values.seconds);
const BACKLOG = Number(values.backlog);
const TARGET_P99 = 250;
/** one service run per nice value: its name and its environment */
const settingEnv = (setting: string) => ({ PDF_CHECK_PRIORITY: setting.replace('nice ', ''), PDF_CHECK_THREADS: values.threads! });

const summary = (l: number[]) => {
  const s = [...l].sort((a, b) => a - b);
  return s.length ? `n ${s.length}, p50 ${ms(pct(s, 50))}, p90 ${ms(pct(s, 90))}, p99 ${ms(pct(s, 99))}, max ${ms(s[s.length - 1])}` : 'none';
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function runSetting(setting: string, files: CorpusFile[]): Promise<{ idle: Record<string, number[]>; loaded: Record<string, number[]> }> {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const port = await freePort();
  const ftpPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-ack-'));
  const { cert, key: keyFile } = selfSignedCert(work);
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const service: ChildProcess = spawn(process.execPath, buildService(), {
    // a session of its own: on Linux with autogroup scheduling the service then shares the CPU with
    // its own threads and PostgreSQL, not with this client's threads, as on its own machine
    detached: true,
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...benchServiceEnv({
        port,
        databaseUrl: db.url,
        redisUrl: redis.url,
        adminToken,
        dataDir: path.join(work, 'data'),
        redisPrefix: 'iiack',
      }),
      ROLES: 'api,worker,ftp',
      FTP_PORT: String(ftpPort),
      FTP_HOST: '127.0.0.1',
      FTP_PASV_URL: '127.0.0.1',
      FTP_PASV_RANGE: `${pasv}-${pasv + 49}`,
      TLS_CERT: cert,
      TLS_KEY: keyFile,
      ...settingEnv(setting),
    },
  });
  const sql = new pg.Client({ connectionString: db.url });
  const base = `https://127.0.0.1:${port}`;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false });
  const closers: (() => Promise<void>)[] = [];
  try {
    await waitUntilReady(async () => (await fetch(`${base}/readyz`)).ok && (await canConnect(ftpPort)), 'the service', 120_000);
    await sql.connect();
    const account = await apiCaller(base)('POST', '/admin/accounts', adminToken, { name: 'ack' });
    const key = account.liveKey as string;
    const backlog = async () => (await sql.query(`select count(*)::int as n from intake_records where status = 'received'`)).rows[0].n as number;
    const settled = async () => (await sql.query(`select count(*)::int as n from intake_records where status <> 'received'`)).rows[0].n as number;
    const nice = () => threadNices(service.pid!);
    const queueOpts = { connection: { host: '127.0.0.1', port: redis.port }, prefix: queuePrefix({ redisPrefix: 'iiack' }) };
    const queue = new Queue('intake', queueOpts);
    closers.push(() => queue.close());
    // the workers' jobs as they end: done, failed, or tried again later (a file waiting for its
    // invoice is checked again on each try: work that leaves the file's status as it was)
    const events = new QueueEvents('intake', queueOpts);
    closers.push(() => events.close());
    await events.waitUntilReady();
    const jobsRun = { completed: 0, failed: 0, delayed: 0 };
    for (const e of ['completed', 'failed', 'delayed'] as const) events.on(e, () => jobsRun[e]++);

    /** The clients for `seconds`: latencies by channel. */
    const measure = async (tag: string) => {
      const clients = [
        ...Array.from({ length: Number(values['http-clients']) }, (_, i) => ({
          ch: 'http',
          c: startClient({ mode: 'http', port, key, files, tag: `${tag}-h${i}` }),
        })),
        ...Array.from({ length: Number(values['ftps-clients']) }, (_, i) => ({
          ch: 'ftps',
          c: startClient({ mode: 'ftps', port: ftpPort, user: account.ftpUsername, password: key, files, tag: `${tag}-f${i}` }),
        })),
      ];
      await Promise.all(clients.map((x) => x.c.ready));
      await sleep(SECONDS * 1000);
      for (const x of clients) x.c.worker.postMessage({ stop: true });
      const out: Record<string, number[]> = { http: [], ftps: [] };
      for (const x of clients) out[x.ch].push(...(await x.c.result));
      await Promise.all(clients.map((x) => x.c.worker.terminate()));
      return out;
    };
    const report = (what: string, r: Record<string, number[]>, cpu: { client: number; service: number; seconds: number }) => {
      for (const ch of ['http', 'ftps']) console.log(`${setting} ${what} ${ch === 'http' ? 'POST /v2/imports' : 'FTPS 226       '}: ${summary(r[ch])}`);
      const share = (c: number) => `${((100 * c) / (cpu.seconds * 1000 * os.cpus().length)).toFixed(0)} %`;
      console.log(`${setting} ${what} CPU of the machine: service ${share(cpu.service)}, client ${share(cpu.client)}; load ${load()}`);
    };
    const meter = () => {
      const c0 = process.cpuUsage();
      const s0 = cpuMs([service.pid!]);
      const t0 = Date.now();
      return () => {
        const c = process.cpuUsage(c0);
        return { client: (c.user + c.system) / 1000, service: cpuMs([service.pid!]) - s0, seconds: (Date.now() - t0) / 1000 };
      };
    };

    // 1. idle: the reference, the receiving side alone (the intake queue paused: the workers take
    // nothing); the first round warms the paths up (workers included) and is not measured
    await measure('warm');
    while ((await backlog()) > 0) await sleep(200);
    await queue.pause();
    let m = meter();
    const idle = await measure('idle');
    report('idle  ', idle, m());

    // 2. loaded: what the idle round received is the workers' backlog; the feeder keeps it at
    // least BACKLOG deep with more real files while the same clients send again
    let feeding = true;
    let fed = 0;
    const feeder = (async () => {
      while (feeding) {
        if ((await backlog()) >= BACKLOG) {
          await sleep(100);
          continue;
        }
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            const n = fed++;
            const f = files[n % files.length];
            const bytes = Buffer.concat([Buffer.from(f.bytes), Buffer.from(f.name.endsWith('.xml') ? `\n<!-- feed-${n} -->\n` : `\n% feed-${n}\n`)]);
            await postJson(agent, port, key, JSON.stringify({ Filename: `feed-${n}-${f.name}`, Content: bytes.toString('base64') }));
          }),
        );
      }
    })();
    await queue.resume();
    while ((await backlog()) < BACKLOG) await sleep(100);
    const startBacklog = await backlog();
    const settled0 = await settled();
    const jobs0 = { ...jobsRun };
    m = meter();
    const loaded = await measure('load');
    const used = m();
    const endBacklog = await backlog();
    const workerRate = ((await settled()) - settled0) / used.seconds;
    const ran = (k: keyof typeof jobsRun) => jobsRun[k] - jobs0[k];
    const jobRate = (ran('completed') + ran('failed') + ran('delayed')) / used.seconds;
    feeding = false;
    await feeder;
    report('loaded', loaded, used);
    const failures = (await sql.query(`select reason, count(*)::int as n from intake_records where status = 'failed' group by reason`)).rows;
    console.log(
      `${setting} loaded workers: backlog ${startBacklog} at start, ${endBacklog} at end (never empty: ${endBacklog > 0 ? 'yes' : 'NO'}), ${workerRate.toFixed(1)} files/s settled, ${jobRate.toFixed(1)} jobs/s run (${ran('completed')} done, ${ran('delayed')} to try again, ${ran('failed')} failed); PDF check threads' nice: ${nice()}; failed files: ${failures.map((f) => `${f.n} ${String(f.reason).slice(0, 60)}`).join('; ') || 'none'}`,
    );
    return { idle, loaded };
  } finally {
    for (const close of closers) await close().catch(() => {});
    agent.destroy();
    await sql.end().catch(() => {});
    await stopChild(service);
    await db.drop();
    await redis.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  const files = corpus();
  console.log(
    `acknowledgements under load: ${files.length} real e-invoices (${files.filter((f) => f.name.endsWith('.xml')).length} XML to render), ${values['http-clients']} HTTPS client threads, ${values['ftps-clients']} FTPS, ${SECONDS} s a phase, ${os.cpus().length} CPUs; load ${load()}`,
  );
  const results: Record<string, Awaited<ReturnType<typeof runSetting>>> = {};
  for (const n of values.nice!.split(',')) results[`nice ${n}`] = await runSetting(`nice ${n}`, files);
  for (const [s, r] of Object.entries(results)) {
    for (const ch of ['http', 'ftps']) {
      const p99 = (l: number[]) =>
        pct(
          [...l].sort((a, b) => a - b),
          99,
        );
      const loaded = p99(r.loaded[ch]);
      console.log(
        `${s}: ${ch} p99 loaded ${ms(loaded)} against idle ${ms(p99(r.idle[ch]))} (ratio ${(loaded / p99(r.idle[ch])).toFixed(1)}); target < ${TARGET_P99} ms: ${loaded < TARGET_P99 ? 'met' : 'MISSED'}`,
      );
    }
  }
  console.log(`machine load average: ${load()} at the end`);
}

runBench(main);
