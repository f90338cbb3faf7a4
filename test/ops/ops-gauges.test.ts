// The series the alerts and the dashboard need beyond the basic ones (src/ops/service-gauges.ts and
// the additions in src/ops/metrics.ts): readiness and ping latency, listeners up, DATA_DIR's free
// space, the certificate's end, the oldest waiting job, upload-to-attached time, the reconciler's
// requeues, failing webhook endpoints, and IMAP series only where a poller runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { Metrics } from '../../src/ops/metrics.ts';
import { observeCertificate, observeDataDir, observeReadiness } from '../../src/ops/service-gauges.ts';
import type { ReadinessCheck } from '../../src/ops/readiness.ts';
import { sleep } from '../../testkit/wait.ts';
import { makeCertificate } from '../ftp/ftp-harness.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { parsePrometheusText, sampleValue, type Sample } from './prom-text.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const read = async (m: Metrics): Promise<Sample[]> => parsePrometheusText(await m.text()).samples;
const named = (samples: Sample[], name: string) => samples.filter((s) => s.name === name);

describe('readiness and listener gauges', () => {
  it("run the readiness checks at scrape time: each check's answer and time, the listeners by channel", async () => {
    const m = new Metrics({ defaultMetrics: false });
    let redisUp = true;
    const checks = new Map<string, ReadinessCheck>([
      ['database', async () => sleep(120)],
      [
        'redis',
        async () => {
          if (!redisUp) throw new Error('no answer');
        },
      ],
      ['worker', async () => {}],
      ['ftp', async () => {}],
      [
        'ftps-implicit',
        async () => {
          throw new Error('implicit FTPS not started');
        },
      ],
      ['smtp', async () => {}],
    ]);
    observeReadiness(m.registry, checks);
    let s = await read(m);
    expect(sampleValue(s, 'invoice_intake_ready')).toBe(0);
    expect(sampleValue(s, 'invoice_intake_readiness_check_ok', { check: 'database' })).toBe(1);
    expect(sampleValue(s, 'invoice_intake_readiness_check_ok', { check: 'ftps-implicit' })).toBe(0);
    expect(sampleValue(s, 'invoice_intake_readiness_check_duration_seconds', { check: 'database' })).toBeGreaterThanOrEqual(0.1);
    expect(sampleValue(s, 'invoice_intake_readiness_check_duration_seconds', { check: 'redis' })).toBeLessThan(0.1);
    // only listeners, labelled by the channel they serve
    expect(
      named(s, 'intake_listener_up')
        .map((x) => [x.labels.channel, x.labels.listener, x.value])
        .sort(),
    ).toEqual([
      ['ftp', 'ftp', 1],
      ['ftp', 'ftps-implicit', 0],
      ['smtp', 'smtp', 1],
    ]);
    // a role's check replaced or a dependency failing shows at the next scrape
    checks.set('ftps-implicit', async () => {});
    redisUp = false;
    s = await read(m);
    expect(sampleValue(s, 'intake_listener_up', { listener: 'ftps-implicit' })).toBe(1);
    expect(sampleValue(s, 'invoice_intake_readiness_check_ok', { check: 'redis' })).toBe(0);
    redisUp = true;
    expect(sampleValue(await read(m), 'invoice_intake_ready')).toBe(1);
  });

  it('are wired to the real checks of a container (the database and Redis answer)', async () => {
    const { coreReadiness } = await import('../../src/app/core-readiness.ts');
    const m = new Metrics({ defaultMetrics: false });
    observeReadiness(m.registry, coreReadiness(t.c));
    const s = await read(m);
    expect(sampleValue(s, 'invoice_intake_readiness_check_ok', { check: 'database' })).toBe(1);
    expect(sampleValue(s, 'invoice_intake_readiness_check_ok', { check: 'redis' })).toBe(1);
    expect(sampleValue(s, 'invoice_intake_readiness_check_duration_seconds', { check: 'redis' })).toBeGreaterThan(0);
  });
});

describe('DATA_DIR and certificate gauges', () => {
  it("report the free and total bytes of DATA_DIR's file system, and nothing for a directory that is gone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-datadir-'));
    const m = new Metrics({ defaultMetrics: false });
    observeDataDir(m.registry, dir);
    const s = await read(m);
    const st = fs.statfsSync(dir);
    const free = sampleValue(s, 'invoice_intake_data_dir_free_bytes');
    expect(sampleValue(s, 'invoice_intake_data_dir_size_bytes')).toBe(st.blocks * st.bsize);
    expect(free).toBeGreaterThan(0);
    expect(Math.abs(free - st.bavail * st.bsize)).toBeLessThan(64 * 1024 * 1024);
    fs.rmSync(dir, { recursive: true });
    expect(named(await read(m), 'invoice_intake_data_dir_free_bytes')).toEqual([]);
  });

  it('report when the TLS_CERT certificate expires, and nothing without one', async () => {
    const cert = await makeCertificate();
    try {
      const m = new Metrics({ defaultMetrics: false });
      observeCertificate(m.registry, cert.cert);
      observeCertificate(new Metrics({ defaultMetrics: false }).registry, undefined);
      const [sample] = named(await read(m), 'invoice_intake_tls_certificate_expiry_timestamp_seconds');
      const notAfter = Date.parse(new X509Certificate(fs.readFileSync(cert.cert)).validTo) / 1000;
      expect(sample.value).toBe(notAfter);
      // the harness's certificate lasts two days
      expect(sample.value - Date.now() / 1000).toBeGreaterThan(86_400);
      expect(sample.value - Date.now() / 1000).toBeLessThan(3 * 86_400);
      expect(sample.labels.subject).toContain('CN=localhost');
    } finally {
      fs.rmSync(cert.dir, { recursive: true, force: true });
    }
  });
});

describe('queue and intake gauges', () => {
  it('report the age of the oldest waiting job per queue, 0 when none waits', async () => {
    const connection = new Redis(t.config.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(`q${randomToken(6)}`, { connection, prefix: t.config.redisPrefix });
    const m = new Metrics({ defaultMetrics: false });
    m.queues.watch(queue);
    try {
      expect(sampleValue(await read(m), 'bullmq_queue_oldest_waiting_seconds', { queue: queue.name })).toBe(0);
      await queue.add('old', {}, { timestamp: Date.now() - 120_000 });
      await queue.add('new', {});
      const age = sampleValue(await read(m), 'bullmq_queue_oldest_waiting_seconds', { queue: queue.name });
      expect(age).toBeGreaterThanOrEqual(120);
      expect(age).toBeLessThan(180);
      // the old one taken: the newer one is the oldest now
      const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
      expect(oldest.name).toBe('old');
      await oldest.remove();
      expect(sampleValue(await read(m), 'bullmq_queue_oldest_waiting_seconds', { queue: queue.name })).toBeLessThan(60);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it("time uploads to attached by channel and count the reconciler's requeues", async () => {
    const m = new Metrics({ defaultMetrics: false });
    m.intake.status('ftp', 'attached', new Date(Date.now() - 3000));
    m.intake.status('ftp', 'attached'); // no receipt time: counted, not timed
    m.intake.status('mail', 'waiting', new Date(Date.now() - 3000));
    m.intake.requeued(2);
    m.intake.requeued(0);
    const s = await read(m);
    expect(sampleValue(s, 'intake_upload_to_attached_seconds_count', { channel: 'ftp' })).toBe(1);
    expect(sampleValue(s, 'intake_upload_to_attached_seconds_sum', { channel: 'ftp' })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(s, 'intake_upload_to_attached_seconds_bucket', { channel: 'ftp', le: '2.5' })).toBe(0);
    expect(sampleValue(s, 'intake_upload_to_attached_seconds_bucket', { channel: 'ftp', le: '5' })).toBe(1);
    expect(named(s, 'intake_upload_to_attached_seconds_count').map((x) => x.labels.channel)).toEqual(['ftp']);
    expect(sampleValue(s, 'intake_imports_total', { channel: 'ftp', status: 'attached' })).toBe(2);
    expect(sampleValue(s, 'intake_reconciler_requeued_total')).toBe(2);
  });

  it('have IMAP series only once a poller reports', async () => {
    const m = new Metrics({ defaultMetrics: false });
    const none = await read(m);
    expect(none.filter((x) => x.name.startsWith('imap_'))).toEqual([]);
    m.imap.connectionState('connecting');
    const s = await read(m);
    expect(sampleValue(s, 'imap_connection_state', { state: 'connecting' })).toBe(1);
    expect(sampleValue(s, 'imap_connection_state', { state: 'connected' })).toBe(0);
    expect(sampleValue(s, 'imap_seconds_since_last_poll')).toBe(-1);
  });
});

describe('failing webhook endpoints', () => {
  it('report each enabled endpoint failing now, since when, from the database', async () => {
    const acct = await t.createAccount();
    const scope = { accountId: acct.id, mode: 'live' as const };
    const repo = t.c.repos.webhooks;
    const mk = (id: string) => repo.insert(t.db, scope, { id, url: 'https://hooks.example.com/x', events: ['import.attached'], secret: 'whsec_x' });
    const failing = `whk_${randomToken(10)}`;
    const healthy = `whk_${randomToken(10)}`;
    const disabled = `whk_${randomToken(10)}`;
    await Promise.all([mk(failing), mk(healthy), mk(disabled)]);
    await repo.recordFailure(t.db, scope, failing, 3_600_000, 'refused');
    await repo.recordFailure(t.db, scope, healthy, 3_600_000, 'refused');
    await repo.recordSuccess(t.db, scope, healthy);
    // failing longer than the disable window: disabled, and no longer reported
    await repo.recordFailure(t.db, scope, disabled, 1000, 'refused');
    await t.db.query(`update webhooks set failing_since = now() - interval '1 hour' where id = $1`, [disabled]);
    await repo.recordFailure(t.db, scope, disabled, 1000, 'refused');
    const mine = named(await read(t.c.metrics), 'webhook_endpoint_failing_seconds').filter((x) => x.labels.account === acct.id);
    expect(mine.map((x) => x.labels.endpoint)).toEqual([failing]);
    expect(mine[0].labels.mode).toBe('live');
    expect(mine[0].value).toBeGreaterThanOrEqual(0);
    expect(mine[0].value).toBeLessThan(60);
  });
});
