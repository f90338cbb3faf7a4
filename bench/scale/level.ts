// One level of bench:scale: a fresh PostgreSQL database migrated by the service, one account
// filled to the level (fill.ts), then, with the service running (api, ftp, worker in one
// process, as `npm start`): intake to attached by HTTP and FTPS, the read probes, then the
// periodic tasks in a worker of their own, and the database's size per file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { randomToken } from '../../src/domain/ids.ts';
import { hashPassword } from '../../src/services/passwords.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { freePort } from '../../testkit/ports.ts';
import { startPrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { apiCaller, benchPdf, bodyPoster, cpuMs, pool, postgresCpuMeter } from '../bench-kit.ts';
import { FtpClients } from '../ftp-clients.ts';
import { fillAccount } from './fill.ts';
import { readProbes, type Figure } from './probes.ts';
import { periodicFigures } from './periodic.ts';

export interface LevelOptions {
  level: number;
  files: number;
  rounds: number;
  log: (s: string) => void;
}

export interface LevelResult {
  level: number;
  figures: Figure[];
  clientCpuMs: number;
  fillSeconds: number;
}

const load1 = () => os.loadavg()[0];

export async function runLevel(o: LevelOptions): Promise<LevelResult> {
  const cpu0 = process.cpuUsage();
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const dbName = new URL(db.url).pathname.slice(1);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-scale-'));
  const cert = path.join(work, 'cert.pem');
  const keyFile = path.join(work, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  const adminToken = `adm_${randomToken(24)}`;
  const ftpPort = await freePort();
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iiscale${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(work, 'data'),
    RATE_LIMIT_MAX: '1000000',
    TLS_CERT: cert,
    TLS_KEY: keyFile,
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv}-${pasv + 49}`,
    // the periodic tasks are measured apart (periodic.ts): here they run once at start and not again
    RECONCILE_INTERVAL_MS: '3600000',
    PURGE_INTERVAL_MS: '3600000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '3600000',
    ANALYZE_INTERVAL_MS: '0',
  };
  const sql = new pg.Client({ connectionString: db.url });
  const procs: ServiceProcess[] = [];
  const start = async (roles: string[], extra: Record<string, string> = {}) => {
    const p = spawnService(roles, { ...env, ...extra }, { build: 'dist' });
    procs.push(p);
    const url = await p.url();
    return { p, url };
  };
  const stop = async (p: ServiceProcess) => {
    p.signal('SIGTERM');
    await p.exited;
  };
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const figures: Figure[] = [];
  try {
    // 1. the service migrates the database; the account, its owner and a webhook are made
    let svc = await start(['api']);
    const call = apiCaller(svc.url);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'scale' });
    await sql.connect();
    const userId = `usr_${randomToken(20)}`;
    const dashboard = { email: `owner-${randomToken(6).toLowerCase()}@example.com`, password: `pw-${randomToken(16)}` };
    await sql.query(`insert into account_users (id, account_id, email, password_hash, role) values ($1, $2, $3, $4, 'owner')`, [
      userId,
      account.id,
      dashboard.email,
      await hashPassword(dashboard.password),
    ]);
    // a webhook that no intake event goes to (the deliveries are the filler's, already delivered)
    const webhookId = `whk_${randomToken(20)}`;
    await sql.query(
      `insert into webhooks (id, account_id, mode, url, events, secret) values ($1, $2, 'live', 'https://hooks.example.com/in', '{invoice.paid}', $3)`,
      [webhookId, account.id, randomToken(32)],
    );
    await stop(svc.p);
    // the migrated database's own size, so that a small level's figure is not its catalogue's
    const emptyBytes = Number((await sql.query('select pg_database_size(current_database()) as b')).rows[0].b);

    // 2. the year of data
    o.log(`level ${o.level}: filling`);
    const f0 = performance.now();
    await fillAccount(sql, { accountId: account.id, webhookId, userId }, o.level, o.log);
    const fillSeconds = (performance.now() - f0) / 1000;
    const filledBytes = Number((await sql.query('select pg_database_size(current_database()) as b')).rows[0].b);
    figures.push({
      name: 'database bytes per filled file (rows and indexes, no PDF bytes)',
      value: (filledBytes - emptyBytes) / o.level,
      unit: 'B',
      load: load1(),
    });

    // 3. the service with every role; intake by HTTP and by FTPS to attached
    svc = await start(['api', 'ftp', 'worker']);
    await svc.p.waitForLog((l) => l.msg === 'intake workers started', 180_000);
    const key = account.liveKey as string;
    const api = apiCaller(svc.url);
    const customer = await api('POST', '/v2/customers', key, { customerCode: 'BENCH-1', name: 'Bench' });
    const numbers = (ch: string) => Array.from({ length: o.files }, (_, i) => `BENCH-${ch}-${i}`);
    const create = async (ch: string) => {
      const t0 = performance.now();
      await pool(o.files, 8, (i) =>
        api('POST', '/v2/invoices', key, {
          customer: customer.id,
          invoiceNumber: numbers(ch)[i],
          invoiceDate: '01-02-2026',
          invoiceDuedate: '01-03-2026',
          invoiceTotal: '100.00',
        }),
      );
      return (performance.now() - t0) / o.files;
    };
    const createMs = await create('H');
    await create('F');
    figures.push({ name: 'POST /v2/invoices (8 at a time, wall ms each)', value: createMs, unit: 'ms', load: load1() });
    const template = await benchPdf(20 * 1024);
    const contents = Array.from({ length: o.files }, (_, i) => Buffer.concat([template, Buffer.from(`% ${i}\n`)]));
    const maxSeq = async () => Number((await sql.query('select coalesce(max(seq), 0) as s from intake_records')).rows[0].s);
    const waitAttached = async (after: number) => {
      for (;;) {
        const [{ attached, failed }] = (
          await sql.query(
            `select count(*) filter (where status = 'attached')::int as attached, count(*) filter (where status = 'failed')::int as failed from intake_records where account_id = $1 and mode = 'live' and seq > $2`,
            [account.id, after],
          )
        ).rows;
        if (failed > 0) throw new Error(`${failed} files failed`);
        if (attached >= o.files) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const intake = async (channel: string, send: () => Promise<void>) => {
      const after = await maxSeq();
      const pgCpu = postgresCpuMeter(sql, dbName);
      const svc0 = cpuMs([svc.p.proc.pid!]);
      const t0 = performance.now();
      await send();
      await waitAttached(after);
      const seconds = (performance.now() - t0) / 1000;
      const svcMs = (cpuMs([svc.p.proc.pid!]) - svc0) / o.files;
      const pgMs = (await pgCpu()) / o.files;
      const load = load1();
      o.log(
        `  ${channel}: ${(o.files / seconds).toFixed(1)} files/s to attached, service CPU ${svcMs.toFixed(1)} ms/file, PostgreSQL CPU ${pgMs.toFixed(1)} ms/file (load ${load.toFixed(1)})`,
      );
      figures.push({
        name: `${channel} intake to attached (wall ms per file)`,
        value: (seconds * 1000) / o.files,
        unit: 'ms',
        load,
        note: `${(o.files / seconds).toFixed(1)} files/s`,
      });
      figures.push({ name: `${channel} service CPU per file`, value: svcMs, unit: 'ms', load });
      figures.push({ name: `${channel} PostgreSQL CPU per file`, value: pgMs, unit: 'ms', load });
    };
    const post = bodyPoster(svc.url, key, 8);
    const bodies = contents.map((b, i) => Buffer.from(JSON.stringify({ Filename: `${numbers('H')[i]}.pdf`, Content: b.toString('base64') })));
    await intake('HTTP', () => pool(o.files, 8, (i) => post('/v2/imports', bodies[i])));
    post.close();
    const ftp = await FtpClients.open('service', { port: ftpPort, user: account.ftpUsername, password: key }, 4, 2, contents);
    const all = contents.map((_, i) => i);
    await intake(
      'FTPS',
      async () =>
        void (await ftp.upload(
          all,
          numbers('F').map((n) => `${n}.pdf`),
        )),
    );
    await ftp.close();

    // 4. reads
    const id = (prefix: 'inv' | 'imp', i: number) => `${prefix}_f${String(i).padStart(19, '0')}`;
    figures.push(...(await readProbes({ base: svc.url, key, level: o.level, id, dashboard }, o.rounds)));
    await stop(svc.p);

    // 5. the periodic tasks, each run several times in a worker of their own
    figures.push(...(await periodicFigures((extra) => start(['worker'], extra), stop, o.log)));

    const bytes = Number((await sql.query('select pg_database_size(current_database()) as b')).rows[0].b);
    const files = Number((await sql.query('select count(*)::int as n from intake_records')).rows[0].n);
    figures.push({
      name: 'database bytes per file after the run',
      value: (bytes - emptyBytes) / files,
      unit: 'B',
      load: load1(),
      note: `${(bytes / 1024 / 1024).toFixed(0)} MB, ${files} files`,
    });
    const cpu = process.cpuUsage(cpu0);
    return { level: o.level, figures, clientCpuMs: (cpu.user + cpu.system) / 1000, fillSeconds };
  } finally {
    await sql.end().catch(() => {});
    for (const p of procs) p.signal('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await redis.stop();
    if (!process.env.SCALE_KEEP_DATABASE) await db.drop();
    else o.log(`kept ${db.url}`);
    fs.rmSync(work, { recursive: true, force: true });
  }
}
