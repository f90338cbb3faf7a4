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
//
// --split runs the ftp role in a process of its own and api + worker in another, and reports the
// peak RSS of each. --profile writes CPU profiles of the service and of the reference into <dir>.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import { benchPdf, buildService, cpuMs, mainThreadCpuMs, ms, pct, postgresCpuMeter, runBench, stopChild, storeInPostgres, waitUntilReady, apiCaller, pool } from './bench-kit.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { startVsftpd, treeCpuMs } from './vsftpd.ts';
import { FtpClients } from './ftp-clients.ts';
import { canConnect, peakRssMb, sleep } from './ftp-kit.ts';
import { leanProgress, median, startLeanServer } from './lean-intake.ts';

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
  },
});
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const CLIENT_THREADS = Number(values['client-threads']);
const SEQUENTIAL = Math.min(50, FILES);
const profileArgs = (who: string) => (values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values.profile, who)] : []);

interface Round { rate: number; uploadRate: number; procMs: number; pgMs: number; clientMs: number; mainMs?: number[]; latencies?: number[] }

async function main() {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const leanDb = await createPgDatabase();
  const port = await freePort();
  const ftpPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-ftp-'));
  const cert = path.join(work, 'cert.pem');
  const key = path.join(work, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const env = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, REDIS_URL: redis.url,
    REDIS_PREFIX: 'iibench', ADMIN_TOKEN: adminToken, DATA_DIR: path.join(work, 'data'), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000',
    FTP_PORT: String(ftpPort), FTP_HOST: '127.0.0.1', FTP_PASV_URL: '127.0.0.1', FTP_PASV_RANGE: `${pasv}-${pasv + 49}`, TLS_CERT: cert, TLS_KEY: key,
  };
  const serviceArgs = buildService();
  const start = (roles: string) => spawn(process.execPath, [...profileArgs('service'), ...serviceArgs], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, ROLES: roles } });
  const services = values.split ? [start('api,worker'), start('ftp')] : [start('api,worker,ftp')];
  const lean = await startLeanServer('ftp-bare-server.ts', [leanDb.url, redis.url, 'iilean', cert, key], profileArgs('reference'));
  const vsftpd = await startVsftpd({ folder: path.join(work, 'vsftpd'), port: await freePort(), cert, key, pasv: [pasv + 100, pasv + 149] });
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
    await pool(FILES * ROUNDS + WARMUP + 1, 16, (n) =>
      call('POST', '/v2/invoices', liveKey, { customer: customer.id, invoiceNumber: numberOf(n), invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' }));
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
    for (const c of [svcClients, leanClients, vsClients]) await c.upload(warm, warm.map((i) => `WARM-${i}.pdf`));
    const pendingService = async () => {
      const [{ pending, failed }] = (await sql.query(
        `select count(*) filter (where status in ('received', 'waiting'))::int as pending, count(*) filter (where status = 'failed')::int as failed from intake_records`)).rows;
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
      const used = meter(services.map((p) => p.pid!), db.url);
      const t0 = Date.now();
      const up = await svcClients.upload(all, names);
      while ((await pendingService()) > 0) await sleep(50);
      const cpu = await used();
      const rows = (await sql.query(`select s.filename, extract(epoch from r.attached_at) * 1000 as attached from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached' and s.filename = any($1)`, [names])).rows;
      if (rows.length !== FILES) throw new Error(`round ${r + 1}: expected ${FILES} attached, found ${rows.length}`);
      const attachedAt = new Map(rows.map((row) => [row.filename as string, Number(row.attached)]));
      const latencies = names.map((n, i) => attachedAt.get(n)! - up.doneAt[i]).sort((a, b) => a - b);
      return { rate: FILES / ((Math.max(...attachedAt.values()) - t0) / 1000), uploadRate: FILES / up.seconds, clientMs: up.clientCpuMs, latencies, ...cpu };
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
      const up = await vsClients.upload(all, all.map((i) => `V-${r}-${i}.pdf`));
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
      console.log(`round ${r + 1}: service ${s.rate.toFixed(1)} attached/s, reference ${f.rate.toFixed(1)} done/s (ratio ${(s.rate / f.rate).toFixed(2)}), vsftpd ${vs[r].rate.toFixed(1)}/s; ` +
        `CPU a file: service ${(s.procMs / FILES).toFixed(2)} + PostgreSQL ${(s.pgMs / FILES).toFixed(2)} ms, reference ${(f.procMs / FILES).toFixed(2)} + PostgreSQL ${(f.pgMs / FILES).toFixed(2)} ms; load ${os.loadavg()[0].toFixed(1)}`);
    }
    const rss = services.map((p) => peakRssMb(p.pid!));
    const docs = (await sql.query(`select count(*)::int as n from documents d join invoices i on i.id = d.invoice_id where i.invoice_number like 'BENCH-%' and d.deleted_at is null and d.source = 'ftp'`)).rows[0].n;
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

    const med = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
    const perFile = (rs: Round[], f: (r: Round) => number) => med(rs, f) / FILES;
    const [svcRate, refRate, vsRate] = [med(svc, (r) => r.rate), med(ref, (r) => r.rate), med(vs, (r) => r.rate)];
    const [svcPg, refPg] = [perFile(svc, (r) => r.pgMs), perFile(ref, (r) => r.pgMs)];
    const latencies = svc.flatMap((r) => r.latencies!).sort((a, b) => a - b);
    const p99s = svc.map((r) => pct(r.latencies!, 99));
    const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(`FTP benchmark: ${FILES} PDFs of ${contents[0].length} bytes over ${CONNECTIONS} FTPS connections (basic-ftp in ${CLIENT_THREADS} client threads), ${ROUNDS} rounds, PostgreSQL, ${os.cpus().length} CPUs`);
    console.log(`service, upload -> attached   : ${svcRate.toFixed(1)} PDFs/s median (rounds ${svc.map((r) => r.rate.toFixed(1)).join(', ')}; uploads answered 226 at ${med(svc, (r) => r.uploadRate).toFixed(1)}/s)`);
    console.log(`reference, upload -> done     : ${refRate.toFixed(1)} PDFs/s median (rounds ${ref.map((r) => r.rate.toFixed(1)).join(', ')}; uploads answered 226 at ${med(ref, (r) => r.uploadRate).toFixed(1)}/s)`);
    console.log(`ratio service / reference     : ${(svcRate / refRate).toFixed(2)} (rounds ${svc.map((r, i) => (r.rate / ref[i].rate).toFixed(2)).join(', ')}; target >= 0.9: ${met(svcRate / refRate >= 0.9)})`);
    console.log(`PostgreSQL CPU a file         : service ${svcPg.toFixed(2)} ms, reference ${refPg.toFixed(2)} ms, ratio ${(svcPg / refPg).toFixed(2)} (target <= 1.5: ${met(svcPg / refPg <= 1.5)})`);
    console.log(`  upload done -> attached     : p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))} (rounds ${p99s.map(ms).join(', ')}), max ${ms(latencies[latencies.length - 1])}; target p99 < 1 s: ${met(Math.max(...p99s) < 1000)}`);
    if (values.split) console.log(`  peak RSS (VmHWM)            : ftp process ${rss[1].toFixed(0)} MB, api + worker process ${rss[0].toFixed(0)} MB; target < 350 MB: ${met(Math.max(...rss) < 350)}`);
    else console.log(`  service peak RSS (VmHWM)    : ${rss[0].toFixed(0)} MB (api + worker + ftp roles in one process); target < 350 MB: ${met(rss[0] < 350)}`);
    console.log(`vsftpd to disk (no promise)   : ${vsRate.toFixed(1)} uploads/s median; ratio service / vsftpd ${(svcRate / vsRate).toFixed(2)}`);
    console.log(`PostgreSQL alone, same files  : ${floor.perSecond.toFixed(1)} inserts/s with ${CONNECTIONS} connections, ${floor.pgMsPerFile.toFixed(2)} ms of PostgreSQL CPU each (the floor of staging in the database)`);
    console.log(`one connection, in sequence   : service ${seqService.toFixed(1)} uploads/s, reference ${seqLean.toFixed(1)} uploads/s (${SEQUENTIAL} files; ratio ${(seqService / seqLean).toFixed(2)})`);
    const per = (n: number) => `${n.toFixed(2)} ms`;
    const mains = services.map((_, i) => per(perFile(svc, (r) => r.mainMs![i])));
    const threads = values.split ? `ftp process main thread ${mains[1]}, api + worker main thread ${mains[0]}` : `main thread ${mains[0]}`;
    console.log(`CPU a PDF, service (median)   : ${per(perFile(svc, (r) => r.procMs))} (${threads}) + PostgreSQL ${per(svcPg)}; the client ${per(perFile(svc, (r) => r.clientMs))}`);
    console.log(`CPU a PDF, reference (median) : ${per(perFile(ref, (r) => r.procMs))} (main thread ${per(perFile(ref, (r) => r.mainMs![0]))}) + PostgreSQL ${per(refPg)}; the client ${per(perFile(ref, (r) => r.clientMs))}`);
    console.log(`CPU a PDF, vsftpd (median)    : ${per(perFile(vs, (r) => r.procMs))}; the client ${per(perFile(vs, (r) => r.clientMs))}`);
    // the machine's CPUs divided by all the CPU a file takes (client included): the rate a run that saturates them cannot pass
    const ceiling = (rs: Round[]) => (os.cpus().length * 1000) / (perFile(rs, (r) => r.procMs) + perFile(rs, (r) => r.pgMs) + perFile(rs, (r) => r.clientMs));
    console.log(`CPU-bound ceiling             : service ${ceiling(svc).toFixed(0)} PDFs/s, reference ${ceiling(ref).toFixed(0)} PDFs/s on ${os.cpus().length} CPUs (ratio ${(ceiling(svc) / ceiling(ref)).toFixed(2)})`);
    const share = (rs: Round[]) => `${((100 * med(rs, (r) => r.clientMs)) / ((FILES / med(rs, (r) => r.uploadRate)) * 1000 * os.cpus().length)).toFixed(0)} %`;
    console.log(`client CPU share of machine   : ${share(svc)} (service), ${share(ref)} (reference), ${share(vs)} (vsftpd)`);
    if (!values.split) {
      // the service's intake_staging_batch_size over the whole run (warm-up and sequential files included)
      const text = await (await fetch(`${base}/metrics`)).text();
      const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
      const [count, files] = [read('intake_staging_batch_size_count'), read('intake_staging_batch_size_sum')];
      console.log(`staging groups (whole run)    : ${count ? `${count} statements for ${files} files (${(files / count).toFixed(1)} a group)` : 'no group commit'}`);
    }
    console.log(`machine load average          : ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end, ${os.cpus().length} CPUs`);
  } finally {
    await Promise.all([sql.end(), leanSql.end()].map((p) => p.catch(() => {})));
    await stopChild(lean.proc);
    await vsftpd.stop();
    await Promise.all(services.map((p) => stopChild(p)));
    await Promise.all([db.drop(), leanDb.drop()]);
    await redis.stop();
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
