// FTP benchmark: 1,000 PDFs of 100 KB uploaded over FTPS on 8 parallel connections until every
// one is `attached` (PDFs/s, upload-done -> attached p50/p99, the service's peak RSS), against the
// lean "bare durable intake" (ftp-bare-server.ts: a minimal FTPS server whose 226 comes after the
// bytes are committed in PostgreSQL and a BullMQ job is queued, and whose worker checks each file),
// alternating with it in rounds of the same run; the median of the rounds gives the ratio. Beside
// them vsftpd writing to disk (what an FTP server does without that promise) and PostgreSQL alone
// inserting the same files (the floor of staging them there). The service runs as `npm start`
// runs it (one process, roles api + worker + ftp); every server gets its own database on the same
// PostgreSQL and its own prefix on the same private redis-server.
//
//   npm run bench:ftp -- [--files 1000] [--size 102400] [--connections 8] [--rounds 3] [--client-threads 2] [--warmup 1000] [--split] [--profile <dir>]
//                        [--store database|directory|s3] [--own-postgres] [--pin] [--young-store]
//
// --store database|directory|s3 picks the service's document store (s3: s3rver started here) and
// prints the WAL bytes, database growth and store bytes a file; --own-postgres runs every database
// on a PostgreSQL cluster of this run's own, so that the WAL is this run's (bench/store-kit.ts).
// --pin (with --own-postgres): the servers on CPU 0, the client and s3rver on CPU 1 (cpu-pinning.ts).
// --split runs the ftp role in a process of its own and api + worker in another, and reports the
// peak RSS of each. --profile writes CPU profiles of the service and of the reference into <dir>.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import {
  benchPdf,
  buildService,
  cpuMs,
  mainThreadCpuMs,
  postgresCpuMeter,
  runBench,
  stopChild,
  storeInPostgres,
  waitUntilReady,
  apiCaller,
  pool,
  benchServiceEnv,
} from './bench-kit.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { startVsftpd, treeCpuMs } from './vsftpd.ts';
import { FtpClients } from './ftp-clients.ts';
import { canConnect, peakRssMb, sleep } from './ftp-kit.ts';
import { leanProgress, startLeanServer } from './lean-intake.ts';
import { cpuPinning } from './cpu-pinning.ts';
import { benchPostgres, benchStore, storeMeter, storeName } from './store-kit.ts';
import { printFtpReport, type Round } from './ftp-report.ts';
import { selfSignedCert } from './self-signed.ts';
import { invoiceBody } from './invoice-body.ts';
import { intakeCounts, stagingGroups } from './service-readings.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(100 * 1024) },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    // the client's threads (basic-ftp): one event loop would cap a fast server near 220 uploads/s
    'client-threads': { type: 'string', default: '2' },
    // uploads (not measured, at most --files) that let V8 optimise the hot paths of every server
    // first, as in a service that has been running for a while: after 300 the service's first
    // round still cost 0.5 ms a file more than its third (docs/ftp.md)
    warmup: { type: 'string', default: '1000' },
    profile: { type: 'string' },
    split: { type: 'boolean', default: false },
    store: { type: 'string', default: 'database' },
    'own-postgres': { type: 'boolean', default: false },
    pin: { type: 'boolean', default: false },
    'young-store': { type: 'boolean', default: false },
  },
});
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const CLIENT_THREADS = Number(values['client-threads']);
const SEQUENTIAL = Math.min(50, FILES);
const SETTINGS = { FILES, CONNECTIONS, CLIENT_THREADS, ROUNDS, SEQUENTIAL, split: values.split! };
const profileArgs = (who: string) => (values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values.profile, who)] : []);

async function main() {
  const pinning = cpuPinning(values.pin!, values['own-postgres']!);
  const redis = await startPrivateRedis();
  const pgs = await benchPostgres(values['own-postgres']!);
  const db = await pgs.create();
  const leanDb = await pgs.create();
  const port = await freePort();
  const ftpPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-ftp-'));
  const { cert, key } = selfSignedCert(work);
  const store = await benchStore(storeName(values.store), work, values['young-store']);
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const env = {
    ...benchServiceEnv({ port, databaseUrl: db.url, redisUrl: redis.url, adminToken, dataDir: path.join(work, 'data') }),
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv}-${pasv + 49}`,
    TLS_CERT: cert,
    TLS_KEY: key,
    ...store.env,
  };
  const serviceArgs = buildService();
  const start = (roles: string) =>
    spawn(process.execPath, [...profileArgs('service'), ...serviceArgs], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, ROLES: roles } });
  const services = values.split ? [start('api,worker'), start('ftp')] : [start('api,worker,ftp')];
  const lean = await startLeanServer('ftp-bare-server.ts', [leanDb.url, redis.url, 'iilean', cert, key], profileArgs('reference'));
  const vsftpd = await startVsftpd({ folder: path.join(work, 'vsftpd'), port: await freePort(), cert, key, pasv: [pasv + 100, pasv + 149] });
  pinning.serversStarted([store.pid()]);
  console.log(pinning.what);
  const sql = new pg.Client({ connectionString: db.url });
  const leanSql = new pg.Client({ connectionString: leanDb.url });
  const base = `https://127.0.0.1:${port}`;
  // the API serves HTTPS with the self-signed certificate too
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  try {
    // a busy machine (other sessions' load) can take a minute to start it
    await waitUntilReady(async () => (await fetch(`${base}/readyz`)).ok && (await canConnect(ftpPort)), 'the service', 120_000);
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'bench' });
    const liveKey = account.liveKey as string;
    const customer = await call('POST', '/v2/customers', liveKey, { customerCode: 'B-1', name: 'Bench' });
    // BENCH-<n> for round r's file i is invoice n = r * FILES + i; warm-up file i goes to WARM-<i>,
    // a fresh invoice as in the rounds, so that the path warmed is the path measured; the files
    // of one connection in sequence go to WARM
    const WARMUP = Math.min(Number(values.warmup), FILES);
    const numberOf = (n: number) => (n < FILES * ROUNDS ? `BENCH-${n}` : n < FILES * ROUNDS + WARMUP ? `WARM-${n - FILES * ROUNDS}` : 'WARM');
    await pool(FILES * ROUNDS + WARMUP + 1, 16, (n) => call('POST', '/v2/invoices', liveKey, invoiceBody(customer.id, numberOf(n), '100.00')));
    const template = await benchPdf(SIZE);
    // distinct bytes per file, still ending like a PDF
    const contents = Array.from({ length: FILES }, (_, i) => Buffer.concat([template, Buffer.from(`% ${i}\n`)]));
    await Promise.all([sql.connect(), leanSql.connect()]);

    const open = (what: string, target: Parameters<typeof FtpClients.open>[1], connections = CONNECTIONS) =>
      FtpClients.open(what, target, connections, CLIENT_THREADS, contents);
    const svcClients = await open('service', { port: ftpPort, user: account.ftpUsername, password: liveKey });
    const leanClients = await open('reference', { port: lean.port, user: 'bench', password: 'bench' });
    const vsClients = await open('vsftpd', { port: vsftpd.port, user: 'anonymous', password: 'bench', dir: 'upload', retryOnce: true });
    const all = contents.map((_, i) => i);
    // warm-up of every server (JIT, TLS, pools, threads), not measured
    const warm = all.slice(0, WARMUP);
    for (const c of [svcClients, leanClients, vsClients])
      await c.upload(
        warm,
        warm.map((i) => `WARM-${i}.pdf`),
      );
    const pendingService = async () => {
      const { pending, failed } = await intakeCounts(sql);
      if (failed > 0) throw new Error(`${failed} files failed`);
      return pending as number;
    };
    while ((await pendingService()) > 0) await sleep(50);

    /** CPU (ms) of these processes and of their database's PostgreSQL backends from now until the returned function runs. */
    const meter = (pids: number[], dbUrl: string) => {
      const proc0 = cpuMs(pids);
      const main0 = pids.map(mainThreadCpuMs);
      const pgCpu = postgresCpuMeter(sql, new URL(dbUrl).pathname.slice(1));
      return async () => ({ pgMs: await pgCpu(), procMs: cpuMs(pids) - proc0, mainMs: pids.map((p, i) => mainThreadCpuMs(p) - main0[i]) });
    };

    // the service: FTPS upload -> staged -> queued -> matched -> attached
    const serviceRound = async (r: number): Promise<Round> => {
      const names = all.map((i) => `BENCH-${r * FILES + i}.pdf`);
      const used = meter(
        services.map((p) => p.pid!),
        db.url,
      );
      const cost = await storeMeter(sql, store);
      const t0 = Date.now();
      const up = await svcClients.upload(all, names);
      while ((await pendingService()) > 0) await sleep(50);
      const cpu = await used();
      const costs = await cost();
      const rows = (
        await sql.query(
          `select s.filename, extract(epoch from r.attached_at) * 1000 as attached from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached' and s.filename = any($1)`,
          [names],
        )
      ).rows;
      if (rows.length !== FILES) throw new Error(`round ${r + 1}: expected ${FILES} attached, found ${rows.length}`);
      const attachedAt = new Map(rows.map((row) => [row.filename as string, Number(row.attached)]));
      const latencies = names.map((n, i) => attachedAt.get(n)! - up.doneAt[i]).sort((a, b) => a - b);
      return {
        rate: FILES / ((Math.max(...attachedAt.values()) - t0) / 1000),
        uploadRate: FILES / up.seconds,
        clientMs: up.clientCpuMs,
        latencies,
        costs,
        ...cpu,
      };
    };
    // the reference: FTPS upload -> staged -> queued -> checked -> done
    const referenceRound = async (r: number): Promise<Round> => {
      const names = all.map((i) => `LEAN-${r}-${i}.pdf`);
      const used = meter([lean.proc.pid!], leanDb.url);
      const t0 = Date.now();
      const up = await leanClients.upload(all, names);
      let p = await leanProgress(leanSql, names);
      for (; p.pending > 0 || p.staged < FILES; p = await leanProgress(leanSql, names)) await sleep(50);
      if (p.failed > 0) throw new Error(`round ${r + 1}: the reference failed ${p.failed} files`);
      return { rate: FILES / ((p.lastDone - t0) / 1000), uploadRate: FILES / up.seconds, clientMs: up.clientCpuMs, ...(await used()) };
    };
    // vsftpd: FTPS upload -> on disk (its CPU: the listener and every session's processes)
    const vsftpdRound = async (r: number): Promise<Round> => {
      const cpu0 = treeCpuMs(vsftpd.proc.pid!);
      const up = await vsClients.upload(
        all,
        all.map((i) => `V-${r}-${i}.pdf`),
      );
      return { rate: FILES / up.seconds, uploadRate: FILES / up.seconds, clientMs: up.clientCpuMs, procMs: treeCpuMs(vsftpd.proc.pid!) - cpu0, pgMs: 0 };
    };

    // rounds alternate which of the two goes first, so that neither always follows the other
    const svc: Round[] = [];
    const ref: Round[] = [];
    const vs: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) svc.push(await serviceRound(r)), ref.push(await referenceRound(r));
      else ref.push(await referenceRound(r)), svc.push(await serviceRound(r));
      vs.push(await vsftpdRound(r));
      const [s, f] = [svc[r], ref[r]];
      console.log(
        `round ${r + 1}: service ${s.rate.toFixed(1)} attached/s, reference ${f.rate.toFixed(1)} done/s (ratio ${(s.rate / f.rate).toFixed(2)}), vsftpd ${vs[r].rate.toFixed(1)}/s; ` +
          `CPU a file: service ${(s.procMs / FILES).toFixed(2)} + PostgreSQL ${(s.pgMs / FILES).toFixed(2)} ms, reference ${(f.procMs / FILES).toFixed(2)} + PostgreSQL ${(f.pgMs / FILES).toFixed(2)} ms; load ${os.loadavg()[0].toFixed(1)}`,
      );
    }
    const rss = services.map((p) => peakRssMb(p.pid!));
    const docs = (
      await sql.query(
        `select count(*)::int as n from documents d join invoices i on i.id = d.invoice_id where i.invoice_number like 'BENCH-%' and d.deleted_at is null and d.source = 'ftp'`,
      )
    ).rows[0].n;
    if (docs !== FILES * ROUNDS) throw new Error(`expected ${FILES * ROUNDS} FTP documents, found ${docs}`);
    const written = fs.readdirSync(vsftpd.dir).filter((n) => n.startsWith('V-')).length;
    if (written !== FILES * ROUNDS) throw new Error(`vsftpd wrote ${written} files`);
    await Promise.all([svcClients.close(), leanClients.close(), vsClients.close()]);

    // one connection uploading in sequence (a simple client's case): reply latency, not CPU
    const sequential = async (what: string, target: { port: number; user: string; password: string }, name: (i: number) => string) => {
      const client = await open(what, target, 1);
      const run = await client.upload(all.slice(0, SEQUENTIAL), all.slice(0, SEQUENTIAL).map(name));
      await client.close();
      return SEQUENTIAL / run.seconds;
    };
    const seqService = await sequential('service, one connection', { port: ftpPort, user: account.ftpUsername, password: liveKey }, () => 'WARM.pdf');
    const seqLean = await sequential('reference, one connection', { port: lean.port, user: 'bench', password: 'bench' }, (i) => `SEQ-${i}.pdf`);

    // what PostgreSQL alone takes to store the same files, the floor of staging them there
    const floor = await storeInPostgres(db.url, contents, CONNECTIONS);

    // the service's intake_staging_batch_size over the whole run (warm-up and sequential files included)
    const groups = values.split ? undefined : await stagingGroups(base);
    printFtpReport(SETTINGS, { svc, ref, vs, rss, floor, seqService, seqLean, size: contents[0].length, store: store.kind, postgres: pgs.what, groups });
  } finally {
    await Promise.all([sql.end(), leanSql.end()].map((p) => p.catch(() => {})));
    await stopChild(lean.proc);
    await vsftpd.stop();
    await Promise.all(services.map((p) => stopChild(p)));
    await Promise.all([db.drop(), leanDb.drop()]);
    await Promise.all([redis.stop(), store.stop()]);
    await pgs.stop();
    // vsftpd's per-session processes can still be writing after a failed round: retry, and never
    // let the clean-up's error hide the one that ended the run
    try {
      fs.rmSync(work, { recursive: true, force: true, maxRetries: 10 });
    } catch (err) {
      console.error(`could not remove ${work}: ${(err as Error).message}`);
    }
  }
}

runBench(main);
