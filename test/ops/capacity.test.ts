// What 1,000 files cost the deployment of docs/operations.md (Deployment): api, ftp and two worker
// processes on PostgreSQL and Redis, files half by HTTP (POST /v2/imports) and half by FTPS. Per
// process CPU time (utime + stime from /proc) and resident memory, database rows and bytes
// (pg_total_relation_size), Redis memory (INFO memory). The suite sends CAPACITY_FILES (200);
// the figures in the docs come from CAPACITY_FILES=1000. Every file must be attached once.
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { verify, waitAttached } from './multi-process-checks.ts';
import { flowOnPrivateEngines } from './private-engines.ts';

const FILES = Number(process.env.CAPACITY_FILES ?? 200);
const e = flowOnPrivateEngines();

const TICK = 100; // clock ticks per second on Linux (getconf CLK_TCK)
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime
}
/** The cluster's CPU time: the postmaster's, its live backends', and its reaped children's. */
function postgresCpuSeconds(postmaster: number): number {
  const stat = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const own = stat(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]); // utime, stime, cutime, cstime
  for (const entry of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const f = stat(Number(entry));
      if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone in between
    }
  }
  return ticks / TICK;
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function database() {
  const rows = await e.sql.query<{ relname: string; n: number; bytes: number }>(
    `select c.relname, coalesce(s.n_live_tup, 0)::int as n, pg_total_relation_size(c.oid)::bigint as bytes
       from pg_class c join pg_namespace ns on ns.oid = c.relnamespace left join pg_stat_user_tables s on s.relid = c.oid
      where ns.nspname = 'public' and c.relkind = 'r'`,
  );
  return new Map(rows.rows.map((r) => [r.relname, { n: Number(r.n), bytes: Number(r.bytes) }]));
}

async function redisMemory(): Promise<number> {
  const r = new Redis(e.redis.url);
  try {
    return Number(/used_memory:(\d+)/.exec(await r.info('memory'))![1]);
  } finally {
    r.disconnect();
  }
}

it(`${FILES} files by HTTP and FTPS: what they cost each part`, async () => {
  const files = await e.flow.makeFiles('CAP', FILES, ['http', 'ftp']);
  await e.sql.query('analyze');
  const [db0, redis0] = [await database(), await redisMemory()];
  const cpu0 = new Map([...e.flow.processes].map(([name, p]) => [name, cpuSeconds(p.proc.pid!)]));
  const pgCpu0 = postgresCpuSeconds(e.server.pid());
  const started = Date.now();
  await Promise.all([e.flow.sendHttp(files.filter((f) => f.channel === 'http')), e.flow.sendFtps(files.filter((f) => f.channel === 'ftp'))]);
  await waitAttached(e.sql, files, 600_000);
  const seconds = (Date.now() - started) / 1000;
  const { duplicates } = await verify(e.sql, files);
  expect(duplicates).toBe(0);
  await e.sql.query('analyze');
  const [db1, redis1] = [await database(), await redisMemory()];
  const per1000 = (v: number) => (v * 1000) / FILES;
  const cpu = Object.fromEntries([...e.flow.processes].map(([name, p]) => [name, +per1000(cpuSeconds(p.proc.pid!) - cpu0.get(name)!).toFixed(2)]));
  cpu.postgresql = +per1000(postgresCpuSeconds(e.server.pid()) - pgCpu0).toFixed(2);
  const rss = Object.fromEntries([...e.flow.processes].map(([name, p]) => [name, Math.round(rssMb(p.proc.pid!))]));
  const tables = Object.fromEntries(
    [...db1]
      .map(([t, v]) => [t, { rows: Math.round(per1000(v.n - (db0.get(t)?.n ?? 0))), kB: Math.round(per1000(v.bytes - (db0.get(t)?.bytes ?? 0)) / 1024) }])
      .filter(([, v]) => (v as { rows: number; kB: number }).rows !== 0 || (v as { kB: number }).kB !== 0),
  );
  const pdfBytes = files.reduce((n, f) => n + f.bytes.length, 0) / FILES;
  const figures = {
    files: FILES,
    seconds: +seconds.toFixed(1),
    filesPerSecond: +(FILES / seconds).toFixed(1),
    averagePdfBytes: Math.round(pdfBytes),
    cpuSecondsPer1000: cpu,
    rssMb: rss,
    databasePer1000: tables,
    databaseKBPer1000: Math.round(Object.values(tables).reduce((n: number, t) => n + (t as { kB: number }).kB, 0)),
    redisKBPer1000: Math.round(per1000(redis1 - redis0) / 1024),
  };
  console.log(JSON.stringify(figures, null, 1));
  for (const v of Object.values(cpu)) expect(v).toBeGreaterThan(0);
  expect(tables.intake_records.rows).toBeGreaterThanOrEqual(1000 * 0.95);
}, 900_000);
