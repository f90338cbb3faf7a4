import { Queue, Worker, UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsPlugin } from '../../src/http/routes/metrics-route.ts';
import { Metrics } from '../../src/ops/metrics.ts';
import { TransferMetrics } from '../../src/channels/transfer/transfer-metrics.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { buildServer } from '../../src/http/server.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { parsePrometheusText, sampleValue } from './prom-text.ts';
import { makePdf } from '../helpers/fixtures.ts';

let t: TestApp;
let acct: TestAccount;
const METRICS_TOKEN = `mt_${randomToken(20)}`;

beforeAll(async () => {
  t = await startTestApp({ server: (c) => ({ plugins: [metricsPlugin(c.metrics)] }) });
  acct = await t.createAccount();
});
afterAll(() => t?.close());

async function scrape(app = t.app, headers: Record<string, string> = {}) {
  const res = await httpClient(app)('GET', '/metrics', { headers });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(res.body);
}

describe('/metrics', () => {
  it('serves valid exposition text with process metrics and the service info', async () => {
    const { types, samples } = await scrape();
    expect(types.get('process_cpu_seconds_total')).toBe('counter');
    expect(types.get('nodejs_heap_size_used_bytes')).toBe('gauge');
    expect(types.get('http_request_duration_seconds')).toBe('histogram');
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'invoice_intake_info')).toBe(1);
  });

  it('counts requests by route pattern and status, with latency histograms', async () => {
    const before = (await scrape()).samples;
    const route = { method: 'GET', route: '/v2/customers/:customer_id', status_code: '404' };
    const n = 3;
    for (let i = 0; i < n; i++) {
      const res = await t.request('GET', `/v2/customers/cst_missing${i}`, { key: acct.liveKey });
      expect(res.status).toBe(404);
    }
    await t.request('GET', '/no/such/path');
    const { samples } = await scrape();
    expect(sampleValue(samples, 'http_requests_total', route) - sampleValue(before, 'http_requests_total', route)).toBe(n);
    expect(sampleValue(samples, 'http_request_duration_seconds_count', route) - sampleValue(before, 'http_request_duration_seconds_count', route)).toBe(n);
    expect(sampleValue(samples, 'http_request_duration_seconds_bucket', { ...route, le: '+Inf' })).toBe(
      sampleValue(samples, 'http_request_duration_seconds_count', route),
    );
    expect(sampleValue(samples, 'http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    // raw URLs never become labels: the ids above and the unknown path are not in any series
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('cst_missing') || v.includes('/no/such')))).toBe(false);
    expect(sampleValue(samples, 'http_requests_total', { route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
  });

  it('moves the channel counters and gauges that FTP, IMAP and the pipeline update', async () => {
    const m = t.c.metrics;
    // the FTP server counts on prom-client metrics in this registry (src/channels/transfer/transfer-metrics.ts)
    const ftp = new TransferMetrics('ftp', m.registry);
    ftp.inc('connectionsAccepted', 2);
    ftp.inc('loginsFailed');
    ftp.inc('loginsRefusedLockedOut', 3);
    ftp.inc('lockouts');
    ftp.inc('uploadsReceived', 7);
    ftp.inc('bytesReceived', 1234);
    ftp.stall('tls_handshake');
    ftp.connectionOpened();
    m.intake.status('ftp', 'received');
    m.intake.status('ftp', 'attached');
    m.intake.status('mail', 'failed');
    m.imap.connectionState('connected');
    m.imap.pollSucceeded(new Date(Date.now() - 5000));
    const { samples } = await scrape();
    expect(sampleValue(samples, 'ftp_sessions_active')).toBe(1);
    expect(sampleValue(samples, 'ftp_sessions_total')).toBe(2);
    expect(sampleValue(samples, 'ftp_logins_failed_total', { reason: 'credentials' })).toBe(1);
    expect(sampleValue(samples, 'ftp_logins_failed_total', { reason: 'locked_out' })).toBe(3);
    expect(sampleValue(samples, 'ftp_lockouts_total')).toBe(1);
    expect(sampleValue(samples, 'ftp_uploads_total', { outcome: 'received' })).toBe(7);
    expect(sampleValue(samples, 'ftp_received_bytes_total')).toBe(1234);
    expect(sampleValue(samples, 'ftp_transfer_stalls_total', { phase: 'tls_handshake' })).toBe(1);
    ftp.inc('lockouts');
    ftp.connectionClosed();
    const again = (await scrape()).samples;
    expect(sampleValue(again, 'ftp_lockouts_total')).toBe(2);
    expect(sampleValue(again, 'ftp_sessions_active')).toBe(0);
    expect(sampleValue(samples, 'intake_imports_total', { channel: 'ftp', status: 'attached' })).toBe(1);
    expect(sampleValue(samples, 'intake_imports_total', { channel: 'mail', status: 'failed' })).toBe(1);
    expect(sampleValue(samples, 'imap_connection_state', { state: 'connected' })).toBe(1);
    expect(sampleValue(samples, 'imap_connection_state', { state: 'disconnected' })).toBe(0);
    expect(sampleValue(samples, 'imap_seconds_since_last_poll')).toBeGreaterThanOrEqual(5);
  });

  it("shows the PDF check threads' own heaps, which the process's heap series do not count", async () => {
    await t.c.pdfPool!.check(await makePdf('metrics heap'));
    const { types, samples } = await scrape();
    expect(types.get('intake_pdf_thread_heap_bytes')).toBe('gauge');
    const used = sampleValue(samples, 'intake_pdf_thread_heap_bytes', { kind: 'used' });
    expect(used).toBeGreaterThan(1024 * 1024); // a thread that has checked a PDF holds pdf-lib and its files
    expect(sampleValue(samples, 'intake_pdf_thread_heap_bytes', { kind: 'total' })).toBeGreaterThanOrEqual(used);
  });

  it("keeps each container's registry apart (no global registry shared by test apps)", async () => {
    const other = new Metrics({ defaultMetrics: false });
    other.intake.status('mail', 'failed');
    other.intake.status('mail', 'failed');
    const mine = sampleValue((await scrape()).samples, 'intake_imports_total', { channel: 'mail', status: 'failed' });
    expect(mine).toBe(1);
    expect(sampleValue(parsePrometheusText(await other.text()).samples, 'intake_imports_total', { channel: 'mail', status: 'failed' })).toBe(2);
  });

  it('reads queue depth per state at scrape time and times the jobs a worker finishes', async () => {
    const prefix = t.config.redisPrefix;
    const connection = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(`q${randomToken(6)}`, { connection, prefix });
    try {
      t.c.metrics.queues.watch(queue);
      await queue.addBulk([1, 2, 3].map((i) => ({ name: 'ok', data: { i } })));
      await queue.add('flaky', {}, { attempts: 2, backoff: { type: 'fixed', delay: 10 } });
      await queue.add('broken', {}, { attempts: 5 });
      let s = (await scrape()).samples;
      expect(sampleValue(s, 'bullmq_queue_jobs', { queue: queue.name, state: 'waiting' })).toBe(5);
      expect(sampleValue(s, 'bullmq_queue_jobs', { queue: queue.name, state: 'completed' })).toBe(0);

      const worker = new Worker(
        queue.name,
        async (job) => {
          if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('transient');
          if (job.name === 'broken') throw new UnrecoverableError('permanent');
        },
        { connection: connection.duplicate(), prefix },
      );
      t.c.metrics.queues.observeWorker(worker);
      const done = new Promise<void>((resolve) => {
        let finished = 0;
        const tick = () => ++finished === 5 && resolve();
        worker.on('completed', tick);
        worker.on('failed', (job) => job?.finishedOn && tick());
      });
      await done;
      await worker.close();
      s = (await scrape()).samples;
      const l = (name: string, outcome: string) => ({ queue: queue.name, name, outcome });
      expect(sampleValue(s, 'bullmq_jobs_total', l('ok', 'completed'))).toBe(3);
      expect(sampleValue(s, 'bullmq_jobs_total', l('flaky', 'retried'))).toBe(1);
      expect(sampleValue(s, 'bullmq_jobs_total', l('flaky', 'completed'))).toBe(1);
      expect(sampleValue(s, 'bullmq_jobs_total', l('broken', 'failed'))).toBe(1);
      expect(sampleValue(s, 'bullmq_job_duration_seconds_count', l('ok', 'completed'))).toBe(3);
      expect(sampleValue(s, 'bullmq_queue_jobs', { queue: queue.name, state: 'completed' })).toBe(4);
      expect(sampleValue(s, 'bullmq_queue_jobs', { queue: queue.name, state: 'failed' })).toBe(1);
      expect(sampleValue(s, 'bullmq_queue_jobs', { queue: queue.name, state: 'waiting' })).toBe(0);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it('wants the metrics token when METRICS_TOKEN is set', async () => {
    const app = await buildServer(t.c, { plugins: [metricsPlugin(t.c.metrics, METRICS_TOKEN)] });
    try {
      const none = await app.inject({ method: 'GET', url: '/metrics' });
      expect(none.statusCode).toBe(401);
      const wrong = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } });
      expect(wrong.statusCode).toBe(401);
      const { samples } = await scrape(app, { authorization: `Bearer ${METRICS_TOKEN}` });
      expect(samples.length).toBeGreaterThan(10);
    } finally {
      await app.close();
    }
  });
});
