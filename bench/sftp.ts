// SFTP benchmark: 1,000 PDFs of 100 KB uploaded over 8 SFTP connections (ssh2's client) until
// every one is `attached` (PDFs/s, upload-done -> attached p50/p99), against the same uploads to
// OpenSSH's sftp-server writing them to disk, in the same run (ratio). The service runs as
// `npm start` runs it (roles api + worker + sftp) on a fresh PostgreSQL database and a private
// redis-server; the reference server runs in its own process (bench/sftp-bare-server.ts).
//
//   npm run bench:sftp -- [--files 1000] [--size 102400] [--connections 8] [--warmup 200]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { randomToken } from '../src/domain/ids.ts';
import { apiCaller, benchPdf, benchServiceEnv, buildService, cpuMs, ms, pct, pool, runBench, stopChild, waitUntilReady } from './bench-kit.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(100 * 1024) },
    connections: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '200' },
  },
});
const FILES = Number(values.files);
const SIZE = Number(values.size);
const CONNECTIONS = Number(values.connections);
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

function connect(port: number, username: string, password: string): Promise<{ end(): void; sftp: SFTPWrapper }> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.on('error', reject);
    client.on('ready', () => client.sftp((err, sftp) => (err ? reject(err) : resolve({ end: () => client.end(), sftp }))));
    client.connect({ host: '127.0.0.1', port, username, password, readyTimeout: 30_000 });
  });
}

/** Uploads every file once over the connections; returns when each close was answered OK, by index. */
async function uploadAll(what: string, sftps: SFTPWrapper[], names: string[], contents: Buffer[]): Promise<{ doneAt: number[]; seconds: number }> {
  const doneAt: number[] = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    sftps.map(async (sftp) => {
      while (next < names.length) {
        const i = next++;
        await new Promise<void>((resolve, reject) =>
          sftp.writeFile(names[i], contents[i], (err) => (err ? reject(new Error(`${what}: ${names[i]}: ${err.message}`)) : resolve())),
        );
        doneAt[i] = Date.now();
      }
    }),
  );
  return { doneAt, seconds: (Date.now() - t0) / 1000 };
}

async function main() {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const port = await freePort();
  const sftpPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-sftp-'));
  const env = {
    ...benchServiceEnv({ port, databaseUrl: db.url, redisUrl: redis.url, adminToken, dataDir: path.join(work, 'data') }),
    ROLES: 'api,worker,sftp',
    SFTP_PORT: String(sftpPort),
    SFTP_HOST: '127.0.0.1',
  };
  const service = spawn(process.execPath, buildService(), { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env });
  const bareDir = path.join(work, 'bare');
  fs.mkdirSync(bareDir);
  const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/sftp-bare-server.ts', bareDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = Number(await new Promise<string>((resolve) => bare.stdout!.once('data', (d) => resolve(String(d).trim()))));
  const sql = new pg.Client({ connectionString: db.url });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(async () => (await fetch(`${base}/readyz`)).ok);
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'bench' });
    const liveKey = account.liveKey as string;
    const customer = await call('POST', '/v2/customers', liveKey, { customerCode: 'B-1', name: 'Bench' });
    await pool(FILES + 1, 16, (i) =>
      call('POST', '/v2/invoices', liveKey, {
        customer: customer.id,
        invoiceNumber: i < FILES ? `BENCH-${i}` : 'WARM',
        invoiceDate: '01-02-2026',
        invoiceDuedate: '01-03-2026',
        invoiceTotal: '100.00',
      }),
    );
    const template = await benchPdf(SIZE);
    const contents = Array.from({ length: FILES }, (_, i) => Buffer.concat([template, Buffer.from(`% ${i}\n`)]));
    const names = contents.map((_, i) => `BENCH-${i}.pdf`);
    await sql.connect();
    const pending = async () =>
      (
        await sql.query(
          `select count(*) filter (where status in ('received', 'waiting'))::int as n, count(*) filter (where status = 'failed')::int as failed from intake_records`,
        )
      ).rows[0];

    const svc = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(sftpPort, account.ftpUsername, liveKey)));
    const ref = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(barePort, 'bench', 'bench')));
    const warm = contents.slice(0, Number(values.warmup));
    await uploadAll(
      'service warm-up',
      svc.map((c) => c.sftp),
      warm.map(() => 'WARM.pdf'),
      warm,
    );
    await uploadAll(
      'sftp-server warm-up',
      ref.map((c) => c.sftp),
      warm.map(() => 'WARM.pdf'),
      warm,
    );
    while ((await pending()).n > 0) await sleep(50);
    const warmIds = new Set((await sql.query('select id from intake_records')).rows.map((r) => r.id));

    // 1. the service: SFTP upload -> staged -> queued -> matched -> attached
    let cpu0 = { service: cpuMs([service.pid!]), client: process.cpuUsage() };
    const t0 = Date.now();
    const up = await uploadAll(
      'service',
      svc.map((c) => c.sftp),
      names,
      contents,
    );
    for (;;) {
      const p = await pending();
      if (p.failed > 0) throw new Error(`${p.failed} files failed`);
      if (p.n === 0) break;
      await sleep(50);
    }
    const svcClient = process.cpuUsage(cpu0.client);
    const svcCpu = cpuMs([service.pid!]) - cpu0.service;
    const rows = (
      await sql.query(
        `select r.id, s.filename, extract(epoch from r.attached_at) * 1000 as attached from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached'`,
      )
    ).rows.filter((r) => !warmIds.has(r.id));
    if (rows.length !== FILES) throw new Error(`expected ${FILES} attached, found ${rows.length}`);
    const attachedAt = new Map(rows.map((r) => [r.filename as string, Number(r.attached)]));
    const latencies = names.map((n, i) => attachedAt.get(n)! - up.doneAt[i]).sort((a, b) => a - b);
    const attachedSeconds = (Math.max(...attachedAt.values()) - t0) / 1000;

    // 2. OpenSSH's sftp-server writing the same files to disk
    cpu0 = { service: cpuMs([bare.pid!]), client: process.cpuUsage() };
    const refRun = await uploadAll(
      'sftp-server',
      ref.map((c) => c.sftp),
      names,
      contents,
    );
    const refClient = process.cpuUsage(cpu0.client);
    const written = fs.readdirSync(bareDir).filter((n) => n.startsWith('BENCH-')).length;
    if (written !== FILES) throw new Error(`sftp-server wrote ${written} files`);
    for (const c of [...svc, ...ref]) c.end();

    const attachedRate = FILES / attachedSeconds;
    const refRate = FILES / refRun.seconds;
    const per = (n: number) => `${(n / FILES).toFixed(1)} ms`;
    const clientMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    console.log(
      `SFTP benchmark: ${FILES} PDFs of ${contents[0].length} bytes over ${CONNECTIONS} SFTP connections (ssh2 client), PostgreSQL, ${os.cpus().length} CPUs`,
    );
    console.log(
      `service, upload -> attached  : ${attachedRate.toFixed(1)} PDFs/s (${attachedSeconds.toFixed(2)} s; uploads (close OK) done in ${up.seconds.toFixed(2)} s = ${(FILES / up.seconds).toFixed(1)} uploads/s)`,
    );
    console.log(`  upload done -> attached    : p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}`);
    console.log(`OpenSSH sftp-server to disk  : ${refRate.toFixed(1)} uploads/s (${refRun.seconds.toFixed(2)} s; its SSH layer is ssh2, as the service's)`);
    console.log(`ratio attached / sftp-server : ${(attachedRate / refRate).toFixed(2)}   (uploads only: ${(FILES / up.seconds / refRate).toFixed(2)})`);
    console.log(
      `CPU per PDF                  : service process ${per(svcCpu)} (PostgreSQL not counted); the client ${per(clientMs(svcClient))} against the service, ${per(clientMs(refClient))} against sftp-server`,
    );
    console.log(`machine load average (1 min) : ${os.loadavg()[0].toFixed(1)} at the end, ${os.cpus().length} CPUs`);
  } finally {
    await sql.end().catch(() => {});
    bare.kill('SIGTERM');
    await stopChild(service);
    await db.drop();
    await redis.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runBench(main);
