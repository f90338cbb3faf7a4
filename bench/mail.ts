// Mail benchmark: the service as `npm start` runs it (one process, roles api + worker + mail) on a
// fresh PostgreSQL database, a private redis-server and a throwaway Dovecot.
//
//   1. backlog: 1,000 messages (one PDF each, named after an invoice) land in the import mailbox at
//      once (one IMAP MOVE); drained until every file is `attached`: msgs/s.
//   2. live, with IDLE: 1,000 messages delivered one by one at --rate per second while the poller
//      idles: new mail -> attached p50/p90/p99 per message, and msgs/s.
//
//   npm run bench:mail -- [--messages 1000] [--size 51200] [--rate 50] [--split]
//
// --split runs the mail role in a process of its own (ROLES=mail next to ROLES=api,worker), as
// operators scale it out: each process then has an event loop (a core) to itself.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer';
import pg from 'pg';
import { randomToken } from '../src/domain/ids.ts';
import { startDovecot } from '../testkit/dovecot.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { apiCaller, benchPdf, benchServiceEnv, buildService, cpuMs, ms, pct, pool, runBench, stopChild, waitUntilReady } from './bench-kit.ts';
import { invoiceBody } from './invoice-body.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000' },
    size: { type: 'string', default: String(50 * 1024) },
    rate: { type: 'string', default: '50' },
    'worker-concurrency': { type: 'string', default: '8' },
    split: { type: 'boolean', default: false },
  },
});
const N = Number(values.messages);
const SIZE = Number(values.size);
const RATE = Number(values.rate);

/** Every process below `root` (Dovecot's imap and auth processes). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited
    }
  }
  const out: number[] = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p; p = parent.get(p))
      if (p === root) {
        out.push(pid);
        break;
      }
  }
  return out;
}

async function main() {
  const dovecot = await startDovecot();
  const redis = await startPrivateRedis();
  const db = await createPgDatabase();
  const port = await freePort();
  const adminToken = `adm_${randomToken(24)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-mail-'));
  const env = {
    ...benchServiceEnv({ port, databaseUrl: db.url, redisUrl: redis.url, adminToken, dataDir }),
    INTAKE_CONCURRENCY: values['worker-concurrency']!,
    IMAP_URL: dovecot.url('INBOX'),
    MAIL_IDLE_DELAY_MS: '100',
  };
  const main = buildService();
  const start = (roles: string) => spawn(process.execPath, main, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, ROLES: roles } });
  const services = values.split ? [start('api,worker'), start('mail')] : [start('api,worker,mail')];
  console.log(
    `service: ${values.split ? 'two processes, ROLES=api,worker and ROLES=mail' : 'one process, ROLES=api,worker,mail'}; load average before: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const sql = new pg.Client({ connectionString: db.url });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(async () => (await fetch(`${base}/healthz`)).ok);
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'mail bench' });
    const key = account.liveKey as string;
    const to = account.importAddresses.live as string;
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'BENCH', name: 'Bench BV' });
    const numbers = Array.from({ length: 2 * N }, (_, i) => `MB-${i}`);
    await pool(numbers.length, 16, (i) => call('POST', '/v2/invoices', key, invoiceBody(customer.id, numbers[i], '10.00')));
    const pdf = await benchPdf(SIZE);
    const compose = (n: string) =>
      new MailComposer({
        from: 'billing@supplier.example',
        to,
        subject: `Invoice ${n}`,
        text: 'Invoice attached.',
        attachments: [{ filename: `${n}.pdf`, content: pdf }],
      })
        .compile()
        .build();
    await sql.connect();
    const attached = async (prefix: string) =>
      (
        await sql.query(
          `select count(*)::int as n from intake_records r join intake_staging s on s.id = r.id where r.status = 'attached' and s.filename like $1`,
          [`${prefix}%`],
        )
      ).rows[0].n as number;
    const failed = async () => (await sql.query(`select count(*)::int as n from intake_records where status = 'failed'`)).rows[0].n as number;
    const waitAll = async (prefix: string, count: number) => {
      for (;;) {
        if ((await attached(prefix)) >= count) return Date.now();
        if ((await failed()) > 0) throw new Error('some files failed');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const admin = await dovecot.client();

    // CPU of everything this run uses (service processes, the PostgreSQL backends of its
    // database, Dovecot, the private Redis), sampled every 200 ms so processes that end mid-phase
    // still count: a figure the other load on a shared machine distorts less than msgs/s
    const dbName = new URL(db.url).pathname.slice(1);
    const redisPid = Number(
      /process_id:(\d+)/.exec(
        await new Promise<string>((resolve) => {
          const r = spawn('redis-cli', ['-u', redis.url, 'info', 'server']);
          let out = '';
          r.stdout.on('data', (d) => (out += d));
          r.on('close', () => resolve(out));
        }),
      )?.[1] ?? 0,
    );
    const pids = async () => {
      const pg = (await sql.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName])).rows.map(
        (r) => r.pid as number,
      );
      const service = values.split ? { 'api+worker': [services[0].pid!], mail: [services[1].pid!] } : { service: [services[0].pid!] };
      return { ...service, pg, dovecot: [dovecot.pid, ...descendants(dovecot.pid)], redis: redisPid ? [redisPid] : [] };
    };
    const meter = () => {
      const first = new Map<number, number>();
      const last = new Map<number, { group: string; v: number }>();
      let started = false;
      const sample = async () => {
        for (const [group, list] of Object.entries(await pids())) {
          for (const pid of list) {
            const v = cpuMs([pid]);
            if (!first.has(pid)) first.set(pid, started ? 0 : v);
            last.set(pid, { group, v });
          }
        }
      };
      const ready = sample().then(() => (started = true));
      const timer = setInterval(() => void sample().catch(() => {}), 200);
      return async (count: number) => {
        await ready;
        await sample();
        clearInterval(timer);
        const by: Record<string, number> = {};
        for (const [pid, { group, v }] of last) by[group] = (by[group] ?? 0) + v - (first.get(pid) ?? 0);
        const total = Object.values(by).reduce((a, b) => a + b, 0);
        const parts = Object.entries(by)
          .map(([g, v]) => `${g} ${(v / count).toFixed(1)}`)
          .join(', ');
        return `${(total / count).toFixed(1)} ms (${parts}): on ${os.cpus().length} idle cores about ${((os.cpus().length * 1000) / (total / count)).toFixed(0)} msgs/s`;
      };
    };

    // 1. backlog: staged in another mailbox, then moved into the import mailbox in one command
    const backlog = numbers.slice(0, N);
    await admin.mailboxCreate('BenchStaging');
    for (const n of backlog) await admin.append('BenchStaging', await compose(n));
    await admin.mailboxOpen('BenchStaging');
    const backlogMeter = meter();
    const t0 = Date.now();
    await admin.messageMove('1:*', 'INBOX');
    const t1 = await waitAll('MB-', N);
    const backlogCpu = await backlogMeter(N);
    const backlogRate = N / ((t1 - t0) / 1000);
    const lastStaged = (await sql.query(`select extract(epoch from max(received_at)) * 1000 as t from intake_staging`)).rows[0].t as number;
    console.log(`backlog: ${N} messages of ${Math.round(pdf.length / 1024)} KB PDF drained to attached in ${ms(t1 - t0)}: ${backlogRate.toFixed(1)} msgs/s`);
    console.log(`  (handed to intake, i.e. staged and enqueued, after ${ms(lastStaged - t0)}: ${(N / ((lastStaged - t0) / 1000)).toFixed(1)} msgs/s)`);
    console.log(`  CPU per message: ${backlogCpu}`);
    await admin.mailboxClose();

    // 2. live with IDLE: one message every 1/RATE s; latency per message from its delivery
    await new Promise((r) => setTimeout(r, 2000));
    const live = numbers.slice(N);
    const sources = await Promise.all(live.map((n) => compose(n)));
    const deliveredAt = new Map<string, number>();
    const liveMeter = meter();
    const start = Date.now();
    for (let i = 0; i < live.length; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await admin.append('INBOX', sources[i]);
      deliveredAt.set(`${live[i]}.pdf`, Date.now());
    }
    const appendedIn = Date.now() - start;
    const end = await waitAll('MB-', 2 * N);
    const liveCpu = await liveMeter(N);
    const rows = (
      await sql.query(`select s.filename, r.attached_at from intake_records r join intake_staging s on s.id = r.id where s.filename = any($1::text[])`, [
        [...deliveredAt.keys()],
      ])
    ).rows;
    const lat = rows.map((r) => new Date(r.attached_at).getTime() - deliveredAt.get(r.filename)!).sort((a, b) => a - b);
    const stagedRows = (await sql.query(`select s.filename, s.received_at from intake_staging s where s.filename = any($1::text[])`, [[...deliveredAt.keys()]]))
      .rows;
    const staged = stagedRows.map((r) => new Date(r.received_at).getTime() - deliveredAt.get(r.filename)!).sort((a, b) => a - b);
    console.log(
      `live (IDLE, ${RATE} msgs/s offered, delivered in ${ms(appendedIn)}): ${N} messages attached in ${ms(end - start)}: ${(N / ((end - start) / 1000)).toFixed(1)} msgs/s`,
    );
    console.log(`  new mail -> staged:   p50 ${ms(pct(staged, 50))}, p90 ${ms(pct(staged, 90))}, p99 ${ms(pct(staged, 99))}`);
    console.log(`  new mail -> attached: p50 ${ms(pct(lat, 50))}, p90 ${ms(pct(lat, 90))}, p99 ${ms(pct(lat, 99))}, max ${ms(lat[lat.length - 1])}`);
    console.log(`  CPU per message: ${liveCpu}`);
    const dup = (await sql.query(`select count(*)::int as n from (select s.filename from intake_staging s group by s.filename having count(*) > 1) d`)).rows[0]
      .n;
    const left = await dovecot.count('INBOX');
    console.log(`  checks: duplicate files ${dup}, messages left in INBOX ${left}, in Processed ${await dovecot.count('Processed')}`);
    console.log(
      `load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(`targets: >= 50 msgs/s ${backlogRate >= 50 ? 'met' : 'MISSED'} (backlog), p50 < 1 s ${pct(lat, 50) < 1000 ? 'met' : 'MISSED'} (live)`);
  } finally {
    await sql.end().catch(() => {});
    for (const service of services) await stopChild(service);
    await redis.stop();
    await db.drop();
    await dovecot.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
