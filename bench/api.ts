// API benchmark: GET /v2/invoices/{id}, POST /v2/invoices and the download of a 1 MB document
// against a bare Fastify + pg server (one prepared statement: the same row by key / a bare insert /
// the bytea read whole), at 64 connections on a fresh PostgreSQL database. wrk is the client, as
// its own process; service and baseline alternate in each round, so both see the same machine.
//
//   npm run bench:api                      (BENCH_DURATION=5 seconds per measurement, BENCH_ROUNDS=3)
//   SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_ONLY=get npm run bench:api   (profile the service;
//   BARE_NODE_ARGS the same for the baseline; BENCH_ONLY: get, post, content or a list such as get,post)
//   BENCH_BUDGET=1 npm run bench:api       (the budget: the bare server with the service's promises added
//   one at a time, BARE_WITH in bare-server.ts, each level and the service alternating in every round)
//   BENCH_BEFORE=.scratch/dist-before npm run bench:api   (A/B: a second service from another build,
//   e.g. `BUILD_OUT=.scratch/dist-before npm run build` on the code before a change, measured in the same rounds)
//
// The service runs as its own process (ROLES=api, LOG_LEVEL=warn) exactly as `npm start` runs it,
// with its real rate limiter (budget set high enough never to trip) and real key checks.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../testkit/ports.ts';
import { benchPdf, buildService, cpuMs, postgresCpuMeter, runBench, stopChild, waitUntilReady } from './bench-kit.ts';
import { budget, load, median, type Row, type Started } from './api-budget.ts';
import { ensureWrk, runWrk } from './wrk.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 64;
const ONLY = process.env.BENCH_ONLY?.split(','); // while profiling one path
const BUDGET = Boolean(process.env.BENCH_BUDGET);
const BEFORE = process.env.BENCH_BEFORE; // another build's dist directory, run as a second service
const children: ChildProcess[] = [];

const rand = () => Math.random().toString(36).slice(2, 10);
const dbName = `ii_bench_${rand()}`;
const admin = new pg.Client({ connectionString: PG_ADMIN_URL }); // creates the database, then reads its backends' CPU

function start(name: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // the service logs only warnings and errors; BENCH_STDOUT_DIR keeps each server's stdout (--trace-gc)
  const keep = process.env.BENCH_STDOUT_DIR ? fs.createWriteStream(path.join(process.env.BENCH_STDOUT_DIR, `${name}.log`)) : undefined;
  child.stdout!.on('data', (d) => keep?.write(d));
  child.stderr!.on('data', (d) => process.stderr.write(`[${name}] ${d}`));
  children.push(child);
  return child;
}

async function json(url: string, init: RequestInit & { body?: string } = {}) {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  const body = await res.json();
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body as any;
}

async function measure(name: string, pid: number, url: string, o: { headers?: Record<string, string>; body?: (run: string) => string } = {}): Promise<Row> {
  const run = (seconds: number) => runWrk(url, { seconds, connections: CONNECTIONS, headers: o.headers, body: o.body?.(rand()) });
  await run(1); // warm-up (JIT, pools, prepared statements)
  const cpu0 = cpuMs([pid]);
  const pgCpu = postgresCpuMeter(admin, dbName);
  const r = await run(DURATION);
  const requests = Math.max(1, r.rps * r.seconds);
  const row = { ...r, name, cpuUs: ((cpuMs([pid]) - cpu0) * 1000) / requests, pgUs: ((await pgCpu()) * 1000) / requests };
  const clientShare = r.clientCpuMs / (r.seconds * 1000 * os.cpus().length);
  console.log(
    `  ${name.padEnd(30)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(1).padStart(5)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   ` +
      `server CPU ${row.cpuUs.toFixed(0).padStart(4)} µs/req   PostgreSQL ${row.pgUs.toFixed(0).padStart(4)} µs/req   wrk CPU ${(clientShare * 100).toFixed(0)} % of the machine   non-2xx ${r.non2xx}   errors ${r.errors}   load ${load()}`,
  );
  return row;
}

async function main() {
  ensureWrk();
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const dbUrl = new URL(PG_ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-'));
  try {
    const [servicePort, barePort] = await Promise.all([freePort(), freePort()]);
    const adminToken = `adm_${rand()}${rand()}`;
    const serviceProcess = start('service', buildService(), {
      ROLES: 'api',
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl.toString(),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ADMIN_TOKEN: adminToken,
      REDIS_PREFIX: `iibench${rand()}`,
      RATE_LIMIT_MAX: '1000000000',
    });
    const service = `http://127.0.0.1:${servicePort}`;
    await waitUntilReady(async () => (await fetch(`${service}/readyz`)).status < 500, `${service}/readyz`, 60_000);
    // the same database (the first service has migrated it), its own port, rate-limit prefix and data
    const beforeStarted = BEFORE
      ? await (async () => {
          const port = await freePort();
          const child = start('before', [...(process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), path.join(BEFORE, 'main.js')], {
            ROLES: 'api',
            PORT: String(port),
            HOST: '127.0.0.1',
            DATABASE_URL: dbUrl.toString(),
            DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-')),
            LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
            ADMIN_TOKEN: adminToken,
            REDIS_PREFIX: `iibench${rand()}`,
            RATE_LIMIT_MAX: '1000000000',
          });
          const url = `http://127.0.0.1:${port}`;
          await waitUntilReady(async () => (await fetch(`${url}/readyz`)).status < 500, `${url}/readyz`, 60_000);
          return { pid: child.pid!, url };
        })()
      : undefined;
    const startBare = async (port: number, steps = '') => {
      const child = start(
        `bare${steps && `+${steps}`}`,
        [...(process.env.BARE_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'bench/bare-server.ts'],
        { PORT: String(port), DATABASE_URL: dbUrl.toString(), BARE_WITH: steps, ...(BUDGET ? { BARE_IDLE_MS: '1000' } : {}) },
      );
      const url = `http://127.0.0.1:${port}`;
      await waitUntilReady(async () => (await fetch(`${url}/documents/none/content`)).status < 500, `${url}/documents/none/content`, 60_000);
      return { pid: child.pid!, url };
    };
    const { pid: barePid, url: bare } = await startBare(barePort);

    const account = await json(`${service}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ name: 'bench' }),
    });
    const auth = { authorization: `Bearer ${account.liveKey}`, 'content-type': 'application/json' };
    const customer = await json(`${service}/v2/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ customerCode: 'B-1', name: 'Bench BV' }) });
    const invoice = await json(`${service}/v2/invoices`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ customer: customer.id, invoiceNumber: 'B-0001', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '480.00' }),
    });
    // a 1 MB document on it: its download against the bare server's whole-bytea read
    const document = await json(`${service}/v2/documents`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        invoice: invoice.id,
        filename: 'bench.pdf',
        mediatype: 'application/pdf',
        content: (await benchPdf(1024 * 1024)).toString('base64'),
      }),
    });
    // every request a new invoice number: "<n>" becomes the wrk thread and its count
    const postBody =
      (extra: Record<string, string> = {}) =>
      (run: string) =>
        JSON.stringify({
          customer: customer.id,
          invoiceNumber: `${run}-<n>`,
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: '480.00',
          ...extra,
        });

    console.log(
      `\nPostgreSQL ${dbName}, wrk with ${CONNECTIONS} connections (1 thread), ${DURATION} s per measurement, ${ROUNDS} rounds, ${os.cpus().length} CPUs, load average ${load()}`,
    );
    const svcPid = serviceProcess.pid!;
    const cases = [
      {
        key: 'get',
        what: 'GET ',
        target: 0.9,
        barePath: `/invoices/${invoice.id}`,
        body: undefined,
        bare: () => measure('bare    GET /invoices/{id}', barePid, `${bare}/invoices/${invoice.id}`),
        service: () => measure('service GET /v2/invoices/{id}', svcPid, `${service}/v2/invoices/${invoice.id}`, { headers: auth }),
        before: (b: Started) => measure('before  GET /v2/invoices/{id}', b.pid, `${b.url}/v2/invoices/${invoice.id}`, { headers: auth }),
      },
      {
        key: 'post',
        what: 'POST',
        target: 0.8,
        barePath: '/invoices',
        body: postBody({ account: account.id }),
        bare: () =>
          measure('bare    POST /invoices', barePid, `${bare}/invoices`, {
            headers: { 'content-type': 'application/json' },
            body: postBody({ account: account.id }),
          }),
        service: () => measure('service POST /v2/invoices', svcPid, `${service}/v2/invoices`, { headers: auth, body: postBody() }),
        before: (b: Started) => measure('before  POST /v2/invoices', b.pid, `${b.url}/v2/invoices`, { headers: auth, body: postBody() }),
      },
      {
        key: 'content',
        what: 'GET content (1 MB)',
        bare: () => measure('bare    GET /documents/{id}/content', barePid, `${bare}/documents/${document.id}/content`),
        service: () => measure('service GET /v2/documents/{id}/content', svcPid, `${service}/v2/documents/${document.id}/content`, { headers: auth }),
      },
    ].filter((c) => !ONLY || ONLY.includes(c.key));
    if (BUDGET)
      return await budget(
        cases.filter((c) => c.key !== 'content'),
        startBare,
        auth,
        { measure, connections: CONNECTIONS, duration: DURATION, rounds: ROUNDS },
      );
    const rows = cases.map(() => ({ bare: [] as Row[], service: [] as Row[], before: [] as Row[] }));
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}`);
      // bare and service (and the other build) alternate, and which goes first flips every round
      for (const [i, c] of cases.entries()) {
        const runs: [Row[], () => Promise<Row>][] = [
          [rows[i].bare, c.bare],
          [rows[i].service, c.service],
        ];
        if (beforeStarted && 'before' in c && c.before) runs.push([rows[i].before, () => c.before!(beforeStarted)]);
        if (round % 2 === 0) runs.reverse();
        for (const [into, run] of runs) into.push(await run());
      }
    }
    const all = rows.flatMap((r) => [...r.bare, ...r.service, ...r.before]);
    const failures = all.reduce((s, r) => s + r.non2xx + r.errors, 0);
    const clientShare = median(all.map((r) => r.clientCpuMs / (r.seconds * 10 * os.cpus().length)));
    console.log(`\nsummary (median of ${ROUNDS} rounds; load average now ${load()}; wrk used ${clientShare.toFixed(0)} % of the machine's CPU)`);
    for (const [i, { what, target }] of cases.entries()) {
      const med = (side: 'bare' | 'service' | 'before', k: keyof Row) => median(rows[i][side].map((r) => r[k] as number));
      // the targets hold in every round, each round's service against the bare server beside it
      const rounds = rows[i].service.map((s, r) => ({ ratio: s.rps / rows[i].bare[r].rps, p99: s.p99 / rows[i].bare[r].p99 }));
      const met = rounds.filter((r) => target !== undefined && r.ratio >= target && r.p99 <= 2).length;
      const verdict =
        target === undefined
          ? 'no target'
          : `target ratio >= ${target} and p99 within 2x in every round: ${met === ROUNDS ? 'met' : `MISSED (${met} of ${ROUNDS})`}`;
      console.log(
        `  ${what} ratio by round ${rounds.map((r) => r.ratio.toFixed(2)).join(' ')}, p99 against bare ${rounds.map((r) => `${r.p99.toFixed(1)}x`).join(' ')} (${verdict})`,
      );
      console.log(
        `       median: bare ${med('bare', 'rps').toFixed(0)} req/s p99 ${med('bare', 'p99').toFixed(1)} ms, service ${med('service', 'rps').toFixed(0)} req/s p99 ${med('service', 'p99').toFixed(1)} ms; server CPU bare ${med('bare', 'cpuUs').toFixed(0)} µs/req, service ${med('service', 'cpuUs').toFixed(0)} µs/req; PostgreSQL bare ${med('bare', 'pgUs').toFixed(0)} µs/req, service ${med('service', 'pgUs').toFixed(0)} µs/req`,
      );
      if (rows[i].before.length) {
        const cpu = (side: 'service' | 'before') => rows[i][side].map((r, k) => (r.cpuUs / rows[i].bare[k].cpuUs).toFixed(2)).join(' ');
        console.log(
          `       ${BEFORE}: ${med('before', 'rps').toFixed(0)} req/s, ratio by round ${rows[i].before.map((b, k) => (b.rps / rows[i].bare[k].rps).toFixed(2)).join(' ')}; server CPU ${med('before', 'cpuUs').toFixed(0)} µs/req, PostgreSQL ${med('before', 'pgUs').toFixed(0)} µs/req; CPU against bare by round: service ${cpu('service')}, ${BEFORE} ${cpu('before')}`,
        );
      }
    }
    console.log(`  non-2xx or errors: ${failures}\n`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => stopChild(c, 'SIGINT')));
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
