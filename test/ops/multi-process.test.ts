// The service split into processes as operators run it: api, ftp, mail and two workers (each
// `node --import tsx src/main.ts --role X`) on one private Redis and one fresh PostgreSQL
// database, fed by FTP (basic-ftp), e-mail (a throwaway Dovecot) and HTTP (POST /v2/imports).
// 1) 1,000 files by FTP and e-mail ingest with nothing lost and nothing attached twice; 2) during
// a second batch over all three channels every process in turn gets SIGTERM (and is started
// again): it exits 0 and nothing is lost.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { startDovecot, type Dovecot } from '../../testkit/dovecot.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { freePort } from '../../testkit/ports.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { until } from '../../testkit/wait.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { freePortRange } from '../ftp/ftp-harness.ts';
import { Gate, mailboxSettled, verify, waitAttached, type File } from './multi-process-checks.ts';
import { sendFtp, sendHttp, ungated } from './multi-process-clients.ts';

// Sizes: 1,000 files in the first batch (half by FTP, half by e-mail), 300 in the second (a third each by FTP, e-mail, HTTP).
const FIRST = Number(process.env.OPS_MP_FILES ?? 1000);
const SECOND = Number(process.env.OPS_MP_SIGTERM_FILES ?? 300);

let redis: PrivateRedis;
let dovecot: Dovecot;
let db: { url: string; drop: () => Promise<void> };
let sql: pg.Pool;
let env: Record<string, string>;
let apiBase: string;
let key: string;
let importAddress: string;
let ftpUser: string;
/** a network-limited upload key, the FTP password (plain FTP) */
let ftpKey: string;
let ftpPort: number;
let customer: string;
const running = new Map<string, ServiceProcess>();
const everStarted: ServiceProcess[] = [];

function start(name: string, role: string, extra: Record<string, string> = {}): ServiceProcess {
  const p = spawnService([role], { ...env, ...extra });
  running.set(name, p);
  everStarted.push(p);
  return p;
}

async function api(method: string, url: string, body?: unknown, token = key) {
  const res = await httpClient(apiBase)(method, url, { key: token, body });
  return { status: res.status, body: res.raw.length ? res.body : undefined };
}

beforeAll(async () => {
  [redis, dovecot, db] = await Promise.all([startPrivateRedis(), startDovecot(), createPgDatabase()]);
  sql = new pg.Pool({ connectionString: db.url, max: 4 });
  const apiPort = await freePort();
  ftpPort = await freePort();
  const pasv = await freePortRange(40);
  const adminToken = `adm_${randomToken(24)}`;
  env = {
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '8',
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ops-mp-')),
    IMAP_URL: dovecot.url('INBOX'),
    IMPORT_ADDRESS: 'invoices@example.com',
    MAIL_IDLE_DELAY_MS: '50',
    MAIL_POLL_INTERVAL_MS: '2000',
    MAIL_RECONNECT_MIN_MS: '50',
    MAIL_RECONNECT_MAX_MS: '1000',
    MAIL_CLAIM_LEASE_MS: '5000',
    INTAKE_CONCURRENCY: '8',
    INTAKE_BACKOFF_MS: '200',
    INTAKE_BACKOFF_MAX_MS: '1000',
    INTAKE_LOCK_MS: '5000',
    RATE_LIMIT_MAX: '1000000',
    SHUTDOWN_GRACE_MS: '20000',
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_ALLOW_PLAIN: 'true',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv[0]}-${pasv[1]}`,
  };
  apiBase = `http://127.0.0.1:${apiPort}`;
  start('api', 'api', { PORT: String(apiPort) });
  start('mail', 'mail');
  start('ftp', 'ftp');
  start('worker-1', 'worker');
  start('worker-2', 'worker');
  await Promise.all([...running.values()].map((p) => p.url()));

  const account = await api('POST', '/admin/accounts', { name: 'multi-process' }, adminToken);
  expect(account.status).toBe(201);
  key = account.body.liveKey;
  ftpUser = account.body.ftpUsername;
  // plain FTP takes only an upload key limited to networks (issue 44): this host's
  const made = await api('POST', '/v2/account/upload-keys', { name: 'Export job', networks: ['127.0.0.1/32'] });
  expect(made.status).toBe(201);
  ftpKey = made.body.key;
  importAddress = account.body.importAddresses.live;
  customer = (await api('POST', '/v2/customers', { customerCode: 'MP-1', name: 'Multi Process' })).body.id;
}, 180_000);

afterAll(async () => {
  for (const p of everStarted) p.signal('SIGKILL');
  await Promise.all(everStarted.map((p) => p.exited));
  await sql?.end();
  await Promise.all([redis?.stop(), dovecot?.stop()]);
  await db?.drop();
});

async function makeFiles(prefix: string, n: number, channels: File['channel'][]): Promise<File[]> {
  const files: File[] = [];
  for (let i = 0; i < n; i++) {
    const number = `${prefix}-${i}`;
    const res = await api('POST', '/v2/invoices', {
      customer,
      invoiceNumber: number,
      invoiceDate: '01-02-2026',
      invoiceDuedate: '01-03-2026',
      invoiceTotal: '10.00',
    });
    expect(res.status).toBe(201);
    const bytes = await makePdf(`Invoice ${number}`);
    files.push({ number, invoiceId: res.body.id, bytes, sha256: createHash('sha256').update(bytes).digest('hex'), channel: channels[i % channels.length] });
  }
  return files;
}

/** Appends one message per mail file to the import mailbox. */
async function sendMail(files: File[], gate = ungated): Promise<void> {
  const take = gate.feed(files);
  for (let f; (f = await take()); ) {
    await dovecot.append({
      from: 'accounts@supplier.example',
      to: importAddress,
      subject: `Invoice ${f.number}`,
      text: 'Attached.',
      attachments: [{ filename: `${f.number}.pdf`, content: f.bytes, contentType: 'application/pdf' }],
    });
  }
}

/** the FTP upload key's login (plain FTP) */
const ftpLogin = () => ({ port: ftpPort, user: ftpUser, password: ftpKey });

async function sigterm(name: string): Promise<void> {
  const p = running.get(name)!;
  p.signal('SIGTERM');
  const code = await p.exited;
  expect(code, `${name} exit code; stderr: ${p.stderr.join('')}`).toBe(0);
  expect(p.logs.some((l) => l.msg === 'stopped')).toBe(true);
}

describe('api, ftp, mail and two workers in separate processes on one Redis and one PostgreSQL', () => {
  let firstMail = 0;

  it(`ingests ${FIRST} files from FTP and e-mail with none lost or attached twice`, async () => {
    const files = await makeFiles('MP1', FIRST, ['ftp', 'mail']);
    const mail = files.filter((f) => f.channel === 'mail');
    firstMail = mail.length;
    const [, { retries }] = await Promise.all([
      sendMail(mail),
      sendFtp(
        ftpLogin(),
        files.filter((f) => f.channel === 'ftp'),
      ),
    ]);
    expect(retries).toBe(0);
    await waitAttached(sql, files);
    await mailboxSettled(dovecot, mail.length);
    const { duplicates } = await verify(sql, files);
    // nothing was resent in this batch: one record per file
    expect(duplicates).toBe(0);
    expect(await dovecot.count('Failed')).toBe(0);
    // both workers took part
    for (const w of ['worker-1', 'worker-2']) {
      expect(running.get(w)!.logs.filter((l) => l.msg === 'intake attached').length, w).toBeGreaterThan(0);
    }
    // one e-mail's file followed through the logs of two processes by its traceId (the Message-ID)
    const { rows } = await sql.query(`select id from intake_staging where filename = $1`, [`${mail[0].number}.pdf`]);
    const intakeId = rows[0].id as string;
    const workerLogs = [...running.get('worker-1')!.logs, ...running.get('worker-2')!.logs];
    const attached = workerLogs.find((l) => l.msg === 'intake attached' && l.intakeId === intakeId)!;
    expect(attached.traceId).toMatch(/@/);
    const mailLogs = running
      .get('mail')!
      .logs.filter((l) => l.traceId === attached.traceId)
      .map((l) => [l.msg, l.intakeId]);
    expect(mailLogs).toEqual(
      expect.arrayContaining([
        ['intake received', intakeId],
        ['mail message received as imports', undefined],
      ]),
    );
  }, 600_000);

  it(`loses nothing of ${SECOND} files while each process in turn gets SIGTERM during the batch`, async () => {
    const files = await makeFiles('MP2', SECOND, ['ftp', 'mail', 'http']);
    const mail = files.filter((f) => f.channel === 'mail');
    const http = files.filter((f) => f.channel === 'http');
    const ftp = files.filter((f) => f.channel === 'ftp');
    const gate = new Gate();
    gate.open(0.1);
    const sending = Promise.all([sendMail(mail, gate), sendHttp(api, http, gate), sendFtp(ftpLogin(), ftp, gate)]);
    const stops: string[] = [];
    // one process after the other, while files keep coming (each stop lets the next share of
    // the batch go); each is started again after it has exited
    const order = [
      ['worker-1', 'worker'],
      ['ftp', 'ftp'],
      ['mail', 'mail'],
      ['api', 'api'],
      ['worker-2', 'worker'],
    ] as const;
    for (const [k, [name, role]] of order.entries()) {
      // the stop comes once the next share has begun to arrive
      const before = gate.passed;
      gate.open((k + 1) / (order.length + 1));
      await until(() => gate.passed >= Math.min(before + 1, gate.allowed()), 60_000, 'the next share of the batch');
      const extra: Record<string, string> = name === 'api' ? { PORT: new URL(apiBase).port } : {};
      await sigterm(name);
      stops.push(name);
      await start(name, role, extra).url();
    }
    gate.open(1);
    const [, { retries }, { retries: ftpRetries }] = await sending;
    expect(stops).toEqual(['worker-1', 'ftp', 'mail', 'api', 'worker-2']);
    await waitAttached(sql, files);
    await mailboxSettled(dovecot, firstMail + mail.length);
    await verify(sql, files);
    expect(await dovecot.count('Failed')).toBe(0);
    // the stopped processes finished their work: their last words are the orderly stop
    for (const p of everStarted.filter((x) => x.proc.exitCode === 0)) {
      expect(p.logs.map((l) => l.msg)).toContain('stop phase done');
    }
    console.log(
      `SIGTERM batch: ${files.length} files (${ftp.length} FTP, ${mail.length} e-mail, ${http.length} HTTP); resent while their process restarted: ${ftpRetries} FTP, ${retries} HTTP`,
    );
  }, 600_000);
});
