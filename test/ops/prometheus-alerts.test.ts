// The shipped rules and dashboard against a real Prometheus (testkit/prometheus.ts) scraping real
// service processes: an api+ftp+sftp+mail+smtp process without workers, then a worker process. The
// rules are the shipped file with every `for:` cut to 2 s (the only change; thresholds and
// windows stay), scraped and evaluated every second.
// - IntakeBacklogStalled: quiet while nothing waits, firing once files wait with no worker,
//   resolved when a worker runs;
// - MailPollerDisconnected: quiet while connected, firing with Dovecot stopped, resolved when it
//   is back on its port;
// - ReconcilerRequeuedJobs: firing when Redis lost a waiting file's job and the reconciler queued it again;
// - every PromQL expression of config/grafana/invoice-intake.json answers without error and
//   with at least one series.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { startDovecot, type Dovecot } from '../../testkit/dovecot.ts';
import { httpClient, type HttpRequest } from '../../testkit/http-client.ts';
import { ROOT } from '../../testkit/paths.ts';
import { makePdf } from '../../testkit/pdf.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { freePort } from '../../testkit/ports.ts';
import { startPrometheus, type Prometheus } from '../../testkit/prometheus.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { freePortRange, makeCertificate } from '../ftp/ftp-harness.ts';

const run = promisify(execFile);
const JOB = 'invoice-intake';
const POLL = { timeout: 60_000, interval: 500 };
const rules = fs.readFileSync(path.join(ROOT, 'config/prometheus/invoice-intake.rules.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 2s');
const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/grafana/invoice-intake.json'), 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[];
};

let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
let cert: Awaited<ReturnType<typeof makeCertificate>>;
let dovecot: Dovecot;
let prom: Prometheus;
let edge: ServiceProcess;
let worker: ServiceProcess | undefined;
let api: HttpRequest;
let key: string;
let ftpUser: string;
/** a network-limited upload key, the FTP password (plain FTP) */
let ftpKey: string;
let ftpPort: number;
const dirs: string[] = [];
const env: Record<string, string> = {};
const targets: string[] = [];

const hostPort = async (p: ServiceProcess) => new URL(await p.url()).host;
const active = async (alertname: string) => (await prom.alerts()).filter((a) => a.labels.alertname === alertname);
const firing = async (alertname: string) => (await active(alertname)).filter((a) => a.state === 'firing');
const tmpDir = (prefix: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  [pgdb, cert, dovecot, prom] = await Promise.all([
    createPgDatabase(),
    makeCertificate(),
    startDovecot(),
    startPrometheus({ rules, job: JOB, interval: '1s' }),
  ]);
  const pasv = await freePortRange(10);
  ftpPort = await freePort();
  Object.assign(env, {
    DATABASE_URL: pgdb.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    ADMIN_TOKEN: `adm_${randomToken(24)}`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_BACKOFF_MS: '200',
    WEBHOOK_BACKOFF_MAX_MS: '500',
    RECONCILE_INTERVAL_MS: '1000',
    INTAKE_BACKOFF_MS: '600000',
    INTAKE_BACKOFF_MAX_MS: '600000',
  });
  edge = spawnService(['api', 'ftp', 'sftp', 'mail', 'smtp'], {
    ...env,
    DATA_DIR: tmpDir('ii-prom-edge-'),
    SMTP_LISTEN: `127.0.0.1:${await freePort()}`,
    IMAP_URL: dovecot.url(),
    IMPORT_ADDRESS: 'invoices@intake.example.org',
    MAIL_RECONNECT_MIN_MS: '100',
    MAIL_RECONNECT_MAX_MS: '300',
    MAIL_POLL_INTERVAL_MS: '1000',
    FTP_ALLOW_PLAIN: 'true',
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv[0]}-${pasv[1]}`,
  });
  targets.push(await hostPort(edge));
  prom.setTargets(targets);
  api = httpClient(await edge.url());
  const account = await api('POST', '/admin/accounts', { key: env.ADMIN_TOKEN, body: { name: 'watched' } });
  expect(account.status).toBe(201);
  key = account.body.liveKey;
  ftpUser = account.body.ftpUsername;
  // plain FTP takes only an upload key limited to networks (issue 44): this host's
  const made = await api('POST', '/v2/account/upload-keys', { key, body: { name: 'Export job', networks: ['127.0.0.1/32'] } });
  expect(made.status).toBe(201);
  ftpKey = made.body.key;
}, 240_000);

afterAll(async () => {
  for (const p of [edge, worker]) p?.signal('SIGKILL');
  await Promise.all([edge?.exited, worker?.exited]);
  await Promise.all([prom?.stop(), dovecot?.stop(), pgdb?.drop()]);
  for (const d of [...dirs, cert?.dir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

describe('the shipped rules in a real Prometheus', () => {
  it('fire and resolve the backlog, mail poller and reconciler alerts as the service lives through them', async () => {
    // scraped, connected, nothing waiting: quiet (the poller was `connecting` at first: a rule
    // evaluated then may still hold the alert pending for one more evaluation)
    await expect.poll(() => prom.query(`imap_connection_state{state="connected"} == 1`), POLL).toHaveLength(1);
    await expect.poll(() => prom.query(`bullmq_queue_jobs{queue="intake", state="waiting"}`), POLL).toHaveLength(1);
    await expect.poll(() => active('MailPollerDisconnected'), POLL).toEqual([]);
    expect(await active('IntakeBacklogStalled')).toEqual([]);
    // every listener of the process, the SMTP receiver's too, reported up by its channel
    // (the API answers before the listeners' roles have started: 0 until then)
    const listeners = async () => (await prom.query('intake_listener_up')).map((s) => [s.metric.channel, s.metric.listener, s.value[1]]).sort();
    await expect.poll(listeners, POLL).toEqual([
      ['ftp', 'ftp', '1'],
      ['sftp', 'sftp', '1'],
      ['smtp', 'smtp', '1'],
    ]);
    await expect.poll(() => active('IntakeListenerDown'), POLL).toEqual([]);

    // files with no worker to take them: a customer, invoices, their PDFs by HTTP and FTP, a file that is no PDF, one whose invoice does not exist yet
    const customer = await api('POST', '/v2/customers', { key, body: { customerCode: `W-${randomToken(4)}`, name: 'Watched BV' } });
    expect(customer.status).toBe(201);
    const numbers = ['W-1', 'W-2', 'W-3'];
    for (const n of numbers) {
      const inv = await api('POST', '/v2/invoices', {
        key,
        body: { customer: customer.body.id, invoiceNumber: n, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
      });
      expect(inv.status).toBe(201);
    }
    const receiver = await webhookReceiver();
    for (const url of [receiver.url, `http://127.0.0.1:${await freePort()}/refused`]) {
      const hook = await api('POST', '/v2/webhooks', { key, body: { Url: url, Events: ['import.attached', 'import.failed'] } });
      expect(hook.status).toBe(201);
    }
    const post = async (name: string, bytes: Buffer) => {
      const res = await api('POST', '/v2/imports', { key, body: { Filename: name, Content: bytes.toString('base64') } });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    await post('W-1.pdf', await makePdf('Invoice W-1'));
    await post('W-2.pdf', await makePdf('Invoice W-2'));
    await post('broken.pdf', Buffer.from('this is not a PDF'));
    const unmatched = await post('W-404.pdf', await makePdf('Invoice W-404'));
    const local = path.join(tmpDir('ii-prom-ftp-'), 'W-3.pdf');
    fs.writeFileSync(local, await makePdf('Invoice W-3'));
    await run('curl', ['-sS', '--user', `${ftpUser}:${ftpKey}`, '-T', local, `ftp://127.0.0.1:${ftpPort}/W-3.pdf`]);
    // a refused login, a 404: series for the dashboard's panels
    await expect(run('curl', ['-sS', '--user', `${ftpUser}:wrong`, `ftp://127.0.0.1:${ftpPort}/`])).rejects.toThrow();
    expect((await api('GET', '/v2/invoices/inv_missing', { key })).status).toBe(404);

    // its summary follows the value at every evaluation: the four PDFs once the last is scraped (the
    // file that is no PDF failed at once, in the channel)
    await expect
      .poll(async () => (await firing('IntakeBacklogStalled')).map((a) => [a.labels, a.annotations.summary]), POLL)
      .toEqual([
        [{ alertname: 'IntakeBacklogStalled', queue: 'intake', severity: 'critical' }, '4 intake jobs wait and no worker has finished one for 5 minutes'],
      ]);
    expect((await firing('IntakeBacklogStalled'))[0].annotations.runbook_url).toBe('docs/operations.md#intakebacklogstalled');

    // the IMAP server goes away, and comes back on its port
    await dovecot.halt();
    await expect.poll(() => firing('MailPollerDisconnected'), POLL).toMatchObject([{ labels: { job: JOB, instance: targets[0], severity: 'critical' } }]);
    await dovecot.resume();
    await expect.poll(() => active('MailPollerDisconnected'), POLL).toEqual([]);

    // a worker starts (with a certificate, so that its expiry is exported): the backlog drains, the alert resolves
    worker = spawnService(['worker'], { ...env, DATA_DIR: tmpDir('ii-prom-worker-'), TLS_CERT: cert.cert, TLS_KEY: cert.key });
    targets.push(await hostPort(worker));
    prom.setTargets(targets);
    await expect.poll(() => active('IntakeBacklogStalled'), POLL).toEqual([]);
    await expect.poll(() => prom.query(`max(bullmq_queue_jobs{queue="intake", state="waiting"})`), POLL).toMatchObject([{ value: [expect.any(Number), '0'] }]);

    // Redis loses the job of the file that waits for its invoice; the reconciler queues it again
    const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    const queue = new Queue('intake', { connection, prefix: `{${env.REDIS_PREFIX}}` });
    try {
      await expect.poll(() => queue.getJobState(unmatched), POLL).toBe('delayed');
      await expect.poll(() => prom.query(`intake_reconciler_requeued_total{instance="${targets[1]}"}`), POLL).toHaveLength(1);
      expect(await active('ReconcilerRequeuedJobs')).toEqual([]);
      await (await queue.getJob(unmatched))!.remove();
      await expect.poll(() => firing('ReconcilerRequeuedJobs'), POLL).toMatchObject([{ labels: { severity: 'warning' } }]);
      expect(await queue.getJobState(unmatched)).not.toBe('unknown');
    } finally {
      await queue.close();
      connection.disconnect();
    }
    // the worker runs no poller: it reports no IMAP series, so the mail alerts never see it
    expect((await prom.query('imap_connection_state')).map((x) => x.metric.instance)).toEqual([targets[0], targets[0], targets[0]]);
    expect(await active('MailPollerDisconnected')).toEqual([]);
    await receiver.close();
  }, 300_000);

  it('answer every expression of the Grafana dashboard with series', async () => {
    const exprs = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$__rate_interval', '10s').replaceAll('$instance', '.*') })),
    );
    expect(exprs.length).toBeGreaterThanOrEqual(25);
    expect(exprs.every((e) => !e.expr.includes('$'))).toBe(true);
    // each answered without error, with at least one series, within the poll (rates want two scrapes)
    await Promise.all(
      exprs.map((e) =>
        expect
          .poll(async () => ({ panel: e.panel, expr: e.expr, series: (await prom.query(e.expr)).length > 0 }), POLL)
          .toEqual({ panel: e.panel, expr: e.expr, series: true }),
      ),
    );
  }, 120_000);
});

/** An HTTP endpoint that answers every webhook delivery 204. */
async function webhookReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const http = await import('node:http');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
