// SMTP benchmark: messages per second from smtp-source (Postfix's load generator) to attached,
// the service as `npm start` runs it (one process, roles api + worker + smtp) on a fresh
// PostgreSQL database and a private redis-server, beside a lean reference in the same run (an
// smtp-server that commits each raw message to PostgreSQL before its 250, and nothing else:
// smtp-lean-server.ts). Each message (one PDF named after an invoice) is its own smtp-source run
// (`-F file`, one connection), --sessions of them at once; the client's CPU is what those
// smtp-source processes used (bash's `times` of its children). Beside each side's rate: the CPU
// a message of its process (the service's main thread apart) and of its PostgreSQL backends, the
// figure that other load on a shared machine distorts least.
//
//   npm run bench:smtp -- [--messages 500] [--size 51200] [--sessions 16]
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import {
  apiCaller,
  benchPdf,
  benchServiceEnv,
  buildService,
  cpuMs,
  mainThreadCpuMs,
  ms,
  pool,
  postgresCpuMeter,
  runBench,
  stopChild,
  waitUntilReady,
} from './bench-kit.ts';
import { invoiceBody } from './invoice-body.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '500' },
    size: { type: 'string', default: String(50 * 1024) },
    sessions: { type: 'string', default: '16' },
  },
});
const N = Number(values.messages);
const SESSIONS = Number(values.sessions);

/** Sends every file with its own smtp-source, SESSIONS at once; returns the wall time and the client's CPU ms. */
function smtpSource(port: number, files: string[], from: string, to: string): Promise<{ ms: number; clientCpuMs: number }> {
  const list = path.join(path.dirname(files[0]), 'list.txt');
  fs.writeFileSync(list, files.join('\n'));
  const script = `xargs -P ${SESSIONS} -I{} smtp-source -4 -M bench.example -f '${from}' -t '${to}' -F {} 127.0.0.1:${port} < '${list}'; times`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`smtp-source: ${stderr || err.message}`));
      // `times`: the shell's user/sys, then its children's: "0m1.234s 0m0.567s"
      const lines = stdout.trim().split('\n');
      const child = lines[lines.length - 1].split(/\s+/).map((t) => {
        const m = /(\d+)m([\d.]+)s/.exec(t)!;
        return (Number(m[1]) * 60 + Number(m[2])) * 1000;
      });
      resolve({ ms: Date.now() - started, clientCpuMs: child[0] + child[1] });
    });
  });
}

async function main() {
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const lean = await createPgDatabase();
  const port = await freePort();
  const smtpPort = await freePort();
  const leanPort = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-smtp-'));
  const env = {
    ...benchServiceEnv({ port, databaseUrl: db.url, redisUrl: redis.url, adminToken, dataDir }),
    ROLES: 'api,worker,smtp',
    SMTP_LISTEN: `127.0.0.1:${smtpPort}`,
    SMTP_MAX_CONNECTIONS_PER_IP: '1000',
    SMTP_MESSAGES_PER_SENDER_PER_HOUR: '1000000',
  };
  const service = spawn(process.execPath, buildService(), { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env });
  const reference = spawn(process.execPath, ['--import', 'tsx', 'bench/smtp-lean-server.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DATABASE_URL: lean.url, PORT: String(leanPort) },
  });
  const referenceUp = new Promise<void>((resolve) => reference.stdout!.on('data', (d) => String(d).includes('listening') && resolve()));
  const sql = new pg.Client({ connectionString: db.url });
  const leanSql = new pg.Client({ connectionString: lean.url });
  const base = `http://127.0.0.1:${port}`;
  console.log(
    `service: one process, ROLES=api,worker,smtp; reference: smtp-server committing to PostgreSQL; load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  try {
    await waitUntilReady(async () => (await fetch(`${base}/readyz`)).ok, 'the service', 120_000);
    await referenceUp;
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'smtp bench' });
    const key = account.liveKey as string;
    const to = account.importAddresses.live as string;
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'BENCH', name: 'Bench BV' });
    const numbers = Array.from({ length: N }, (_, i) => `SB-${i}`);
    await pool(numbers.length, 16, (i) => call('POST', '/v2/invoices', key, invoiceBody(customer.id, numbers[i], '10.00')));
    const pdf = await benchPdf(Number(values.size));
    const files: string[] = [];
    for (const n of numbers) {
      const raw = await new MailComposer({
        from: 'billing@supplier.example',
        to,
        subject: `Invoice ${n}`,
        text: 'Invoice attached.',
        attachments: [{ filename: `${n}.pdf`, content: pdf }],
      })
        .compile()
        .build();
      const file = path.join(dataDir, `${n}.eml`);
      // smtp-source appends CRLF to each line it reads
      fs.writeFileSync(file, raw.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
      files.push(file);
    }
    await sql.connect();
    await leanSql.connect();

    // the reference first (its table is created at its start)
    const load = () =>
      os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    const refCpu0 = cpuMs([reference.pid!]);
    const refPg = postgresCpuMeter(leanSql, new URL(lean.url).pathname.slice(1));
    const ref = await smtpSource(leanPort, files, 'billing@supplier.example', to);
    const refPgMs = (await refPg()) / N;
    const refRows = (await leanSql.query('select count(*)::int as n from lean_smtp')).rows[0].n as number;
    const refRate = refRows / (ref.ms / 1000);
    const refMs = (cpuMs([reference.pid!]) - refCpu0) / N;
    console.log(
      `reference: ${refRows} messages committed in ${ms(ref.ms)}: ${refRate.toFixed(1)} msgs/s (load ${load()}); CPU a message: its process ${refMs.toFixed(2)} ms + PostgreSQL ${refPgMs.toFixed(2)} ms = ${(refMs + refPgMs).toFixed(2)} ms; client (smtp-source) CPU ${(ref.clientCpuMs / N).toFixed(2)} ms/msg`,
    );

    // the service: until every PDF is attached
    const svcCpu0 = cpuMs([service.pid!]);
    const svcMain0 = mainThreadCpuMs(service.pid!);
    const svcPg = postgresCpuMeter(sql, new URL(db.url).pathname.slice(1));
    const t0 = Date.now();
    const sent = await smtpSource(smtpPort, files, 'billing@supplier.example', to);
    let attached = 0;
    for (;;) {
      attached = (await sql.query(`select count(*)::int as n from intake_records where status = 'attached'`)).rows[0].n;
      if (attached >= N) break;
      if ((await sql.query(`select count(*)::int as n from intake_records where status = 'failed'`)).rows[0].n > 0) throw new Error('some files failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    const total = Date.now() - t0;
    const svcMs = (cpuMs([service.pid!]) - svcCpu0) / N;
    const svcMainMs = (mainThreadCpuMs(service.pid!) - svcMain0) / N;
    const svcPgMs = (await svcPg()) / N;
    const rate = N / (total / 1000);
    const committed = (await sql.query('select count(*)::int as n from smtp_messages')).rows[0].n as number;
    console.log(
      `service: ${committed} messages committed in ${ms(sent.ms)} (${(committed / (sent.ms / 1000)).toFixed(1)} msgs/s acknowledged), all ${N} attached after ${ms(total)}: ${rate.toFixed(1)} msgs/s attached (load ${load()}); CPU a message: its process ${svcMs.toFixed(2)} ms (main thread ${svcMainMs.toFixed(2)}) + PostgreSQL ${svcPgMs.toFixed(2)} ms = ${(svcMs + svcPgMs).toFixed(2)} ms; client (smtp-source) CPU ${(sent.clientCpuMs / N).toFixed(2)} ms/msg`,
    );
    console.log(
      `ratio (service to attached / reference to committed): ${(rate / refRate).toFixed(2)}x (target >= 0.8x: ${rate / refRate >= 0.8 ? 'met' : 'MISSED'}); CPU a message, service / reference: ${((svcMs + svcPgMs) / (refMs + refPgMs)).toFixed(1)}x`,
    );
    console.log(`load average after: ${load()}`);
  } finally {
    await sql.end().catch(() => {});
    await leanSql.end().catch(() => {});
    await stopChild(service);
    await stopChild(reference);
    await redis.stop();
    await db.drop();
    await lean.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
