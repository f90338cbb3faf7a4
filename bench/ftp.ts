// FTP benchmark: 1,000 PDFs of 100 KB uploaded over FTPS on 8 parallel connections until every
// one is `attached` (PDFs/s, upload-done -> attached p50/p99, the service's peak RSS), against the
// same uploads to vsftpd (Debian's, the reference: what an FTP server can do) and to a stock
// ftp-srv, both writing them to disk, in the same run (ratios), and against PostgreSQL alone
// inserting the same files (the floor of staging them in the database). The service runs as `npm start`
// runs it (one process, roles api + worker + ftp) on a fresh PostgreSQL database and a private
// redis-server; each FTP server runs in its own process(es).
//
//   npm run bench:ftp -- [--files 1000] [--size 102400] [--connections 8] [--client-threads 2] [--warmup 300] [--split] [--profile <dir>]
//
// --split runs the ftp role in a process of its own and api + worker in another, and reports the
// peak RSS of each.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import { apiCaller, benchPdf, buildService, cpuMs, mainThreadCpuMs, ms, pct, postgresCpuMeter, runBench, stopChild, storeInPostgres } from './bench-kit.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { startVsftpd, treeCpuMs } from './vsftpd.ts';
import { FtpClients } from './ftp-clients.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(100 * 1024) },
    connections: { type: 'string', default: '8' },
    // the client's threads (basic-ftp): one event loop would cap a fast server near 220 uploads/s
    'client-threads': { type: 'string', default: '2' },
    // uploads (not measured) that let V8 optimise the hot paths of both servers first, as in a
    // service that has been running for a while
    warmup: { type: 'string', default: '300' },
    // writes a CPU profile of the service process into this directory
    profile: { type: 'string' },
    // the ftp role in its own process (as FTP nodes are scaled), api + worker in another
    split: { type: 'boolean', default: false },
  },
});
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONNECTIONS = Number(values.connections);
const CLIENT_THREADS = Number(values['client-threads']);
const SEQUENTIAL = Math.min(50, FILES);

const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

/** Peak resident set size of a process (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

function waitForLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
  });
}

async function main() {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const port = await freePort();
  const ftpPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-ftp-'));
  const cert = path.join(work, 'cert.pem');
  const key = path.join(work, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values.profile)] : (process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []);
  const env = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, REDIS_URL: redis.url,
    REDIS_PREFIX: 'iibench', ADMIN_TOKEN: adminToken, DATA_DIR: path.join(work, 'data'), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '1000000',
    FTP_PORT: String(ftpPort), FTP_HOST: '127.0.0.1', FTP_PASV_URL: '127.0.0.1', FTP_PASV_RANGE: `${pasv}-${pasv + 49}`, TLS_CERT: cert, TLS_KEY: key,
  };
  const main = buildService();
  const start = (roles: string) => spawn(process.execPath, [...profile, ...main], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, ROLES: roles } });
  const services = values.split ? [start('api,worker'), start('ftp')] : [start('api,worker,ftp')];
  const bareDir = path.join(work, 'bare');
  fs.mkdirSync(bareDir);
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/ftp-bare-server.ts', bareDir, cert, key, String(pasv + 50), String(pasv + 99)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = Number(await waitForLine(bare));
  const vsftpd = await startVsftpd({ folder: path.join(work, 'vsftpd'), port: await freePort(), cert, key, pasv: [pasv + 100, pasv + 149] });
  const sql = new pg.Client({ connectionString: db.url });
  const base = `https://127.0.0.1:${port}`;
  // the API serves HTTPS with the self-signed certificate too
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/readyz`)).ok && (await canConnect(ftpPort))) break;
      } catch {
        if (i > 300) throw new Error('the service did not start');
      }
      await sleep(100);
    }
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'bench' });
    const liveKey = account.liveKey as string;
    const customer = await call('POST', '/v2/customers', liveKey, { customerCode: 'B-1', name: 'Bench' });
    let made = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (made < FILES + 1) {
        const i = made++;
        await call('POST', '/v2/invoices', liveKey, { customer: customer.id, invoiceNumber: i < FILES ? `BENCH-${i}` : 'WARM', invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' });
      }
    }));
    const template = await benchPdf(SIZE);
    // distinct bytes per file, still ending like a PDF
    const contents = Array.from({ length: FILES }, (_, i) => Buffer.concat([template, Buffer.from(`% ${i}\n`)]));
    const names = contents.map((_, i) => `BENCH-${i}.pdf`);
    await sql.connect();

    // warm-up of both servers (JIT, TLS, pools, threads), not measured
    const open = (what: string, target: { port: number; user: string; password: string; dir?: string }, connections = CONNECTIONS) =>
      FtpClients.open(what, target, connections, CLIENT_THREADS, contents);
    const svcClients = await open('service', { port: ftpPort, user: account.ftpUsername, password: liveKey });
    const bareClients = await open('bare ftp-srv', { port: barePort, user: 'bench', password: 'bench' });
    const vsClients = await open('vsftpd', { port: vsftpd.port, user: 'anonymous', password: 'bench', dir: 'upload' });
    const all = names.map((_, i) => i);
    const warm = all.slice(0, Number(values.warmup));
    for (const c of [svcClients, bareClients, vsClients]) await c.upload(warm, warm.map(() => 'WARM.pdf'));
    for (;;) {
      const [{ n }] = (await sql.query(`select count(*)::int as n from intake_records where status in ('received', 'waiting')`)).rows;
      if (n === 0) break;
      await sleep(50);
    }
    const warmIds = new Set((await sql.query('select id from intake_records')).rows.map((r) => r.id));

    // CPU of the service, its PostgreSQL backends and the stock server: figures that
    // the other load on a shared machine distorts less than PDFs/s
    const dbName = new URL(db.url).pathname.slice(1);
    const meter = () => {
      const start = { service: services.map((p) => cpuMs([p.pid!])), main: services.map((p) => mainThreadCpuMs(p.pid!)), bare: cpuMs([bare.pid!]) };
      const pgCpu = postgresCpuMeter(sql, dbName);
      return async () => {
        const pg = await pgCpu();
        const each = services.map((p, i) => cpuMs([p.pid!]) - start.service[i]);
        const main = services.map((p, i) => mainThreadCpuMs(p.pid!) - start.main[i]);
        return { service: each.reduce((a, b) => a + b, 0), each, main, pg, bare: cpuMs([bare.pid!]) - start.bare };
      };
    };

    // 1. the service: FTPS upload -> staged -> queued -> matched -> attached
    const svcMeter = meter();
    const t0 = Date.now();
    const up = await svcClients.upload(all, names);
    for (;;) {
      const [{ pending, failed }] = (await sql.query(
        `select count(*) filter (where status in ('received', 'waiting'))::int as pending, count(*) filter (where status = 'failed')::int as failed from intake_records`)).rows;
      if (failed > 0) throw new Error(`${failed} files failed`);
      if (pending === 0) break;
      await sleep(50);
    }
    const svcCpu = await svcMeter();
    const rss = services.map((p) => peakRssMb(p.pid!));
    const rows = (await sql.query(`select r.id, s.filename, extract(epoch from r.attached_at) * 1000 as attached from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached'`)).rows.filter((r) => !warmIds.has(r.id));
    if (rows.length !== FILES) throw new Error(`expected ${FILES} attached, found ${rows.length}`);
    const attachedAt = new Map(rows.map((r) => [r.filename as string, Number(r.attached)]));
    const latencies = names.map((n, i) => attachedAt.get(n)! - up.doneAt[i]).sort((a, b) => a - b);
    const attachedSeconds = (Math.max(...attachedAt.values()) - t0) / 1000;
    const docs = (await sql.query(`select count(*)::int as n from documents d join invoices i on i.id = d.invoice_id where i.invoice_number like 'BENCH-%' and d.deleted_at is null and d.source = 'ftp'`)).rows[0].n;
    if (docs !== FILES) throw new Error(`expected ${FILES} FTP documents, found ${docs}`);
    await svcClients.close();

    // 2. stock ftp-srv writing the same files to disk
    const bareMeter = meter();
    const bareRun = await bareClients.upload(all, names);
    const bareCpu = await bareMeter();
    await bareClients.close();
    const written = fs.readdirSync(bareDir).filter((n) => n.startsWith('BENCH-')).length;
    if (written !== FILES) throw new Error(`bare ftp-srv wrote ${written} files`);

    // 3. vsftpd writing the same files to disk (its CPU: the listener and every session's processes)
    const vsCpu0 = treeCpuMs(vsftpd.proc.pid!);
    const vsRun = await vsClients.upload(all, names);
    const vsCpu = treeCpuMs(vsftpd.proc.pid!) - vsCpu0;
    await vsClients.close();
    const vsWritten = fs.readdirSync(vsftpd.dir).filter((n) => n.startsWith('BENCH-')).length;
    if (vsWritten !== FILES) throw new Error(`vsftpd wrote ${vsWritten} files`);

    // 4. one connection uploading in sequence (a simple client's case): reply latency, not CPU
    const sequential = async (what: string, port: number, user: string, password: string) => {
      const client = await open(what, { port, user, password }, 1);
      const run = await client.upload(all.slice(0, SEQUENTIAL), names.slice(0, SEQUENTIAL));
      await client.close();
      return SEQUENTIAL / run.seconds;
    };
    const seqService = await sequential('service, one connection', ftpPort, account.ftpUsername, liveKey);
    const seqBare = await sequential('bare ftp-srv, one connection', barePort, 'bench', 'bench');

    // 5. what PostgreSQL alone takes to store the same files, the floor of staging them there
    const floor = await storeInPostgres(db.url, contents, CONNECTIONS);

    const attachedRate = FILES / attachedSeconds;
    const uploadRate = FILES / up.seconds;
    const bareRate = FILES / bareRun.seconds;
    const vsRate = FILES / vsRun.seconds;
    const p99 = pct(latencies, 99);
    console.log(`FTP benchmark: ${FILES} PDFs of ${contents[0].length} bytes over ${CONNECTIONS} FTPS connections (basic-ftp in ${CLIENT_THREADS} client threads), PostgreSQL, ${os.cpus().length} CPUs`);
    console.log(`service, upload -> attached  : ${attachedRate.toFixed(1)} PDFs/s (${attachedSeconds.toFixed(2)} s; uploads answered 226 in ${up.seconds.toFixed(2)} s = ${uploadRate.toFixed(1)} uploads/s)`);
    console.log(`  upload done -> attached    : p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}`);
    if (values.split) console.log(`  peak RSS (VmHWM)           : ftp process ${rss[1].toFixed(0)} MB, api + worker process ${rss[0].toFixed(0)} MB`);
    else console.log(`  service peak RSS (VmHWM)   : ${rss[0].toFixed(0)} MB (api + worker + ftp roles in one process)`);
    console.log(`vsftpd to disk (reference)   : ${vsRate.toFixed(1)} uploads/s (${vsRun.seconds.toFixed(2)} s)`);
    console.log(`bare ftp-srv to disk         : ${bareRate.toFixed(1)} uploads/s (${bareRun.seconds.toFixed(2)} s)`);
    console.log(`PostgreSQL alone, same files : ${floor.perSecond.toFixed(1)} inserts/s with ${CONNECTIONS} connections, ${floor.pgMsPerFile.toFixed(1)} ms of PostgreSQL CPU each (the floor of staging in the database)`);
    console.log(`ratio attached / vsftpd      : ${(attachedRate / vsRate).toFixed(2)}   (uploads only: ${(uploadRate / vsRate).toFixed(2)}; target >= 0.8: ${attachedRate / vsRate >= 0.8 ? 'met' : 'MISSED'})`);
    console.log(`ratio attached / bare ftp-srv: ${(attachedRate / bareRate).toFixed(2)}   (uploads only: ${(uploadRate / bareRate).toFixed(2)})`);
    console.log(`ratio attached / PostgreSQL alone: ${(attachedRate / floor.perSecond).toFixed(2)}`);
    console.log(`targets                      : p99 upload -> attached < 1 s: ${p99 < 1000 ? 'met' : 'MISSED'}; peak RSS < 350 MB: ${Math.max(...rss) < 350 ? 'met' : 'MISSED'}`);
    console.log(`one connection, in sequence  : service ${seqService.toFixed(1)} uploads/s, bare ftp-srv ${seqBare.toFixed(1)} uploads/s (${SEQUENTIAL} files; ratio ${(seqService / seqBare).toFixed(2)})`);
    const per = (n: number) => `${(n / FILES).toFixed(1)} ms`;
    const threads = (i: number) => `${per(svcCpu.each[i])}: main thread ${per(svcCpu.main[i])}`;
    const processes = values.split ? `ftp process ${threads(1)}; api + worker process ${threads(0)}` : `service process ${threads(0)}`;
    console.log(`CPU per PDF, service         : ${per(svcCpu.service + svcCpu.pg)} (${processes}, PostgreSQL ${per(svcCpu.pg)}); the client ${per(up.clientCpuMs)}`);
    console.log(`CPU per PDF, bare ftp-srv    : ${per(bareCpu.bare)}; the client ${per(bareRun.clientCpuMs)}`);
    console.log(`CPU per PDF, vsftpd          : ${per(vsCpu)}; the client ${per(vsRun.clientCpuMs)}`);
    const share = (cpu: number, seconds: number) => `${((100 * cpu) / (seconds * 1000 * os.cpus().length)).toFixed(0)} %`;
    console.log(`client CPU share of machine  : ${share(up.clientCpuMs, up.seconds)} (service run), ${share(vsRun.clientCpuMs, vsRun.seconds)} (vsftpd run)`);
    console.log(`machine load average (1 min) : ${os.loadavg()[0].toFixed(1)} at the end, ${os.cpus().length} CPUs`);
  } finally {
    await sql.end().catch(() => {});
    bare.kill('SIGTERM');
    await vsftpd.stop();
    await Promise.all(services.map((p) => stopChild(p)));
    await db.drop();
    await redis.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runBench(main);
