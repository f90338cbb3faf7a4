// API benchmark: GET /v2/invoices/{id} and POST /v2/invoices at 64 connections on a fresh
// PostgreSQL database, against a bare Fastify + pg handler reading the same row, in one run.
//
//   npm run bench:api                      (BENCH_DURATION=5 seconds per measurement, BENCH_ROUNDS=3)
//   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_ONLY=get npm run bench:api   (profile the service)
//
// The service runs as its own process (ROLES=api, LOG_LEVEL=warn) exactly as `npm start` runs it,
// with its real rate limiter (budget set high enough never to trip) and real key checks.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import pg from 'pg';
import { freePort } from '../testkit/ports.ts';
import { pollFor } from '../testkit/wait.ts';
import { buildService, stopChild } from './bench-kit.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 64;
const GET_ONLY = process.env.BENCH_ONLY === 'get'; // while profiling the read path
const children: ChildProcess[] = [];

const rand = () => Math.random().toString(36).slice(2, 10);

function start(name: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', () => {}); // the service logs only warnings and errors
  child.stderr!.on('data', (d) => process.stderr.write(`[${name}] ${d}`));
  children.push(child);
  return child;
}

/** Resolves once `url` answers below 500 (a refused connection counts as not yet). */
async function waitFor(url: string, ms = 60_000): Promise<void> {
  const status = await pollFor(async () => (await fetch(url)).status, (s) => s < 500, { ms, everyMs: 200, tolerateErrors: true });
  if (status >= 500) throw new Error(`${url} did not come up`);
}

async function json(url: string, init: RequestInit & { body?: string } = {}) {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body as any;
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time of the server process per request, in microseconds */
  cpuUs: number;
  non2xx: number;
  errors: number;
}

/** user + system CPU time of a process in ms, from /proc (Linux) */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in 1/100 s ticks
  } catch {
    return Number.NaN;
  }
}

async function measure(name: string, pid: number, opts: Parameters<typeof autocannon>[0]): Promise<Row> {
  await autocannon({ ...opts, connections: CONNECTIONS, duration: 1 }); // warm-up (JIT, pools)
  const cpu0 = cpuMs(pid);
  const r: Result = await autocannon({ ...opts, connections: CONNECTIONS, duration: DURATION });
  const cpuUs = ((cpuMs(pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
  const row = { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, cpuUs, non2xx: r.non2xx, errors: r.errors + r.timeouts };
  console.log(
    `  ${name.padEnd(32)} ${row.rps.toFixed(0).padStart(6)} req/s   p50 ${String(row.p50).padStart(3)} ms   p99 ${String(row.p99).padStart(4)} ms   ` +
      `CPU ${cpuUs.toFixed(0).padStart(4)} µs/req   non-2xx ${row.non2xx}   errors ${row.errors}`,
  );
  return row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const dbName = `ii_bench_${rand()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const dbUrl = new URL(PG_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-'));
  try {
    const [servicePort, barePort] = await Promise.all([freePort(), freePort()]);
    const adminToken = `adm_${rand()}${rand()}`;
    const serviceProcess = start('service', buildService(), {
      ROLES: 'api', PORT: String(servicePort), HOST: '127.0.0.1', DATABASE_URL: dbUrl.toString(), DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ADMIN_TOKEN: adminToken, REDIS_PREFIX: `iibench${rand()}`, RATE_LIMIT_MAX: '1000000000',
    }, (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean));
    const service = `http://127.0.0.1:${servicePort}`;
    await waitFor(`${service}/readyz`);
    const bareProcess = start('bare', ['--import', 'tsx', 'bench/bare-server.ts'], { PORT: String(barePort), DATABASE_URL: dbUrl.toString() });
    const bare = `http://127.0.0.1:${barePort}`;
    await waitFor(`${bare}/invoices/none`);
    await waitFor(`${bare}/prepared/none`);

    const account = await json(`${service}/admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` }, body: JSON.stringify({ name: 'bench' }) });
    const auth = { authorization: `Bearer ${account.liveKey}`, 'content-type': 'application/json' };
    const customer = await json(`${service}/v2/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ customerCode: 'B-1', name: 'Bench BV' }) });
    const invoice = await json(`${service}/v2/invoices`, {
      method: 'POST', headers: auth,
      body: JSON.stringify({ customer: customer.id, invoiceNumber: 'B-0001', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00' }),
    });
    const postBody = (prefix: string, extra: Record<string, string> = {}) =>
      JSON.stringify({ customer: customer.id, invoiceNumber: `${prefix}-[<id>]`, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00', ...extra });

    console.log(`\nPostgreSQL ${dbName}, ${CONNECTIONS} connections, ${DURATION} s per measurement, ${ROUNDS} rounds, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}\n`);
    const svcPid = serviceProcess.pid!;
    const barePid = bareProcess.pid!;
    const rows: Row[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`);
      rows.push([
        await measure('bare    GET /invoices/{id}', barePid, { url: `${bare}/invoices/${invoice.id}` }),
        await measure('service GET /v2/invoices/{id}', svcPid, { url: `${service}/v2/invoices/${invoice.id}`, headers: auth }),
        await measure('bare    GET (prepared statement)', barePid, { url: `${bare}/prepared/${invoice.id}` }),
        ...(GET_ONLY ? [] : [
          await measure('bare    POST /invoices', barePid, { url: `${bare}/invoices`, method: 'POST', headers: { 'content-type': 'application/json' }, body: postBody(`BARE${round}`, { account: account.id }), idReplacement: true }),
          await measure('service POST /v2/invoices', svcPid, { url: `${service}/v2/invoices`, method: 'POST', headers: auth, body: postBody(`SVC${round}`), idReplacement: true }),
        ]),
      ]);
    }
    const med = (i: number, k: keyof Row) => median(rows.map((r) => r[i][k] as number));
    const getRatio = med(1, 'rps') / med(0, 'rps');
    const postRatio = GET_ONLY ? Number.NaN : med(4, 'rps') / med(3, 'rps');
    const preparedRatio = med(1, 'rps') / med(2, 'rps');
    const getP99 = med(1, 'p99');
    const failures = rows.flat().reduce((s, r) => s + r.non2xx + r.errors, 0);
    console.log(`\nsummary (median of ${ROUNDS} rounds; load average now ${os.loadavg()[0].toFixed(1)})`);
    console.log(`  GET  bare ${med(0, 'rps').toFixed(0)} req/s, service ${med(1, 'rps').toFixed(0)} req/s: ratio ${getRatio.toFixed(2)}  (target >= 0.80: ${getRatio >= 0.8 ? 'met' : 'MISSED'})`);
    console.log(`  GET  service p50 ${med(1, 'p50')} ms, p99 ${getP99} ms  (target p99 < 20 ms: ${getP99 < 20 ? 'met' : 'MISSED'}); bare p50 ${med(0, 'p50')} ms, p99 ${med(0, 'p99')} ms`);
    console.log(`  GET  server CPU per request: bare ${med(0, 'cpuUs').toFixed(0)} µs, service ${med(1, 'cpuUs').toFixed(0)} µs (bare/service ${(med(0, 'cpuUs') / med(1, 'cpuUs')).toFixed(2)})`);
    console.log(`  GET  against the bare handler with a prepared statement (${med(2, 'rps').toFixed(0)} req/s, p99 ${med(2, 'p99')} ms, CPU ${med(2, 'cpuUs').toFixed(0)} µs): ratio ${preparedRatio.toFixed(2)}`);
    if (!GET_ONLY) console.log(`  POST bare ${med(3, 'rps').toFixed(0)} req/s, service ${med(4, 'rps').toFixed(0)} req/s: ratio ${postRatio.toFixed(2)}; service p50 ${med(4, 'p50')} ms, p99 ${med(4, 'p99')} ms`);
    if (!GET_ONLY) console.log(`  POST server CPU per request: bare ${med(3, 'cpuUs').toFixed(0)} µs, service ${med(4, 'cpuUs').toFixed(0)} µs`);
    console.log(`  non-2xx or errors: ${failures}\n`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => stopChild(c, 'SIGINT')));
    const cleanup = new pg.Client({ connectionString: PG_ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${dbName} with (force)`);
    await cleanup.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
