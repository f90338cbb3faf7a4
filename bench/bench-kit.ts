// Small helpers the benchmarks share: percentiles, a bounded pool, sized PDFs, CPU time of processes.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pMap from 'p-map';
import pg from 'pg';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { httpClient } from '../testkit/http-client.ts';
import { pollFor } from '../testkit/wait.ts';

/**
 * Builds the service as `npm start` does (dist/, no TypeScript loader) and returns the arguments
 * of node that run it, led by the flags in SERVICE_NODE_ARGS (--trace-gc, --cpu-prof, ...).
 */
export function buildService(): string[] {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] });
  return [...(process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/main.js'];
}

/** The settings every bench gives the service it starts (with the caller's own added): loopback, quiet logs, no rate limit. */
export function benchServiceEnv(o: {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  adminToken: string;
  dataDir: string;
  redisPrefix?: string;
}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: o.redisPrefix ?? 'iibench',
    ADMIN_TOKEN: o.adminToken,
    DATA_DIR: o.dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '1000000',
  };
}

/** The p-th percentile of an ascending array (nearest rank). */
export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
export const ms = (n: number) => `${n.toFixed(0)} ms`;

/** Runs fn(0..n-1) with at most `width` at a time. */
export async function pool(n: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  await pMap(
    Array.from({ length: n }, (_, i) => i),
    fn,
    { concurrency: width },
  );
}

/** A one-page PDF of about `size` bytes: the padding is random bytes in an embedded file, so incompressible. */
export async function benchPdf(size: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Invoice BENCH', { x: 50, y: 780, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const bare = (await doc.save()).length;
  await doc.attach(randomBytes(Math.max(0, size - bare - 600)), 'padding.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await doc.save());
}

/** CPU time (user + system, all threads) of these processes in ms, from /proc; gone processes count 0. */
export function cpuMs(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + statCpuMs(`/proc/${pid}/stat`), 0);
}

/** CPU time of a process's main thread alone (the event loop) in ms; the rest of cpuMs is GC, libuv and worker threads. */
export function mainThreadCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuMs(file: string): number {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, CLK_TCK 100
  } catch {
    return 0; // exited
  }
}

/**
 * CPU of the PostgreSQL backends serving `dbName` from now until the returned function is called
 * (ms). Sampled every 200 ms, so that backends the pool closes mid-phase still count with their
 * last reading (new ones start from zero).
 */
export function postgresCpuMeter(sql: { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> }, dbName: string): () => Promise<number> {
  const backends = async () =>
    (await sql.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName])).rows.map((r) => r.pid as number);
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let started = false;
  const sample = async () => {
    for (const pid of await backends()) {
      const v = cpuMs([pid]);
      if (!first.has(pid)) first.set(pid, started ? 0 : v);
      last.set(pid, v);
    }
  };
  const ready = sample().then(() => (started = true));
  const timer = setInterval(() => void sample().catch(() => {}), 200);
  return async () => {
    await ready;
    await sample();
    clearInterval(timer);
    let pg = 0;
    for (const [pid, v] of last) pg += v - (first.get(pid) ?? 0);
    return pg;
  };
}

/**
 * The floor under any intake that keeps what it receives in PostgreSQL before answering (ours
 * does, see DESIGN.md): the same files inserted by `connections` clients at once, one prepared
 * insert each into a table stored as intake_staging is (bytes out of line, uncompressed), nothing
 * else. Files per second, and the CPU of PostgreSQL's backends per file (ms).
 */
export async function storeInPostgres(url: string, files: Buffer[], connections: number): Promise<{ perSecond: number; pgMsPerFile: number }> {
  const pool = new pg.Pool({ connectionString: url, max: connections });
  const meter = new pg.Client({ connectionString: url }); // apart, so that it never measures itself
  await meter.connect();
  try {
    await pool.query('create table bench_floor (id text primary key, content bytea); alter table bench_floor alter column content set storage external');
    await Promise.all(Array.from({ length: connections }, () => pool.query('select 1'))); // every connection open before the clock
    const pgCpu = postgresCpuMeter(meter, new URL(url).pathname.slice(1));
    const t0 = performance.now();
    await pMap(files, (bytes, i) => pool.query({ name: 'floor', text: 'insert into bench_floor (id, content) values ($1, $2)', values: [`f${i}`, bytes] }), {
      concurrency: connections,
    });
    const seconds = (performance.now() - t0) / 1000;
    return { perSecond: files.length / seconds, pgMsPerFile: (await pgCpu()) / files.length };
  } finally {
    await pool.query('drop table if exists bench_floor').catch(() => {});
    await Promise.all([pool.end(), meter.end()]);
  }
}

/** Polls `ready` every 100 ms (errors count as not ready) until it says yes; throws after `ms`. */
export async function waitUntilReady(ready: () => Promise<boolean>, what = 'the service', ms = 30_000): Promise<void> {
  if (!(await pollFor(ready, Boolean, { ms, everyMs: 100, tolerateErrors: true }))) throw new Error(`${what} did not start`);
}

/** JSON calls to the service with a Bearer token; anything but 2xx throws with the answer. */
export function apiCaller(base: string) {
  const request = httpClient(base);
  return async (method: string, p: string, token: string, body?: unknown) => {
    const res = await request(method, p, { key: token, body });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.raw}`);
    return JSON.parse(res.raw.toString('utf8'));
  };
}

/**
 * POSTs JSON bodies built beforehand as bytes, over keep-alive connections with node:http: the
 * client of the upload benchmarks. fetch costs the client about 2 ms per 136 KB body (it encodes
 * the string afresh each time, V8 large objects), a quarter of the machine taken from the service.
 */
export function bodyPoster(base: string, token: string, connections: number) {
  // https when the service serves it (TLS_CERT set, as for FTPS), with the tests' self-signed certificate
  const tls = base.startsWith('https:');
  const agent = tls
    ? new https.Agent({ keepAlive: true, maxSockets: connections, rejectUnauthorized: false })
    : new http.Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(base);
  const post = (p: string, body: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length };
      const req = (tls ? https : http).request({ hostname, port, path: p, method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`POST ${p}: ${res.statusCode} ${Buffer.concat(chunks)}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  return Object.assign(post, { close: () => agent.destroy() });
}

/** Asks a child process to stop and waits until it has (at once when it already exited). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}

// A bench that fails halfway must not leave its servers running: they would load the machine
// under the next measurement. Whatever way the process ends, its children that are left go too.
process.on('exit', () => {
  try {
    execFileSync('pkill', ['-KILL', '-P', String(process.pid)]);
  } catch {} // none left
});

/** Runs a benchmark's main and exits: 0 when it finished, 1 with the error printed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
