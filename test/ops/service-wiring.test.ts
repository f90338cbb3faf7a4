// The ops parts as the service wires them (startService with the api and worker roles, real
// HTTP): metrics move when a file is ingested, and the dashboard links a job to its record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { startIntakeApp, type IntakeApp } from '../intake/intake-harness.ts';
import { parsePrometheusText, sampleValue, type Sample } from './prom-text.ts';
import { threadNices } from '../helpers/thread-nices.ts';

let t: IntakeApp;
let key: string;
let customer: string;

const basic = (pass: string) => `Basic ${Buffer.from(`ops:${pass}`).toString('base64')}`;

beforeAll(async () => {
  t = await startIntakeApp();
  key = (await t.account()).liveKey;
  const res = await t.request('POST', '/v2/customers', { key, body: { customerCode: 'OPS-1', name: 'Ops' } });
  expect(res.status).toBe(201);
  customer = res.body.id;
});
afterAll(() => t?.close());

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`${t.svc.apiUrl}/metrics`);
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text()).samples;
}

async function invoice(n: string) {
  const res = await t.request('POST', '/v2/invoices', {
    key,
    body: { customer, invoiceNumber: n, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('ops wiring of the service', () => {
  it('moves the intake, job and HTTP metrics when a file is ingested', async () => {
    await invoice('OPS-100');
    const before = await scrape();
    const diff = (after: Sample[], name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);

    const sent = await t.request('POST', '/v2/imports', { key, body: { Filename: 'OPS-100.pdf', Content: (await makePdf('OPS-100')).toString('base64') } });
    expect(sent.status).toBe(202);
    expect((await t.waitFor(key, sent.body.id)).status).toBe('attached');
    const junk = await t.request('POST', '/v2/imports', {
      key,
      body: { Filename: 'OPS-101.pdf', Content: Buffer.from('not a pdf at all').toString('base64') },
    });
    expect(junk.body.status).toBe('failed');

    const after = await scrape();
    expect(diff(after, 'intake_imports_total', { channel: 'http', status: 'received' })).toBe(1);
    expect(diff(after, 'intake_imports_total', { channel: 'http', status: 'attached' })).toBe(1);
    expect(diff(after, 'intake_imports_total', { channel: 'http', status: 'failed' })).toBe(1);
    expect(diff(after, 'bullmq_jobs_total', { queue: 'intake', name: 'intake.process', outcome: 'completed' })).toBe(1);
    expect(diff(after, 'bullmq_job_duration_seconds_count', { queue: 'intake', name: 'intake.process', outcome: 'completed' })).toBe(1);
    expect(diff(after, 'http_requests_total', { method: 'POST', route: '/v2/imports', status_code: '202' })).toBe(2);
    expect(sampleValue(after, 'bullmq_queue_jobs', { queue: 'intake', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'bullmq_queue_jobs', { queue: 'intake', state: 'waiting' })).toBe(0);
  });

  it('runs the PDF check threads at PDF_CHECK_PRIORITY (19 by default) and the thread that answers at 0 (Linux, from /proc)', async () => {
    expect(t.config.pdfCheckPriority).toBe(19);
    // the worker role starts the pool's threads (warm) and a file keeps them up
    await invoice('OPS-150');
    const sent = await t.request('POST', '/v2/imports', { key, body: { Filename: 'OPS-150.pdf', Content: (await makePdf('OPS-150')).toString('base64') } });
    expect((await t.waitFor(key, sent.body.id)).status).toBe('attached');
    t.svc.container.pdfPool!.warm();
    await expect.poll(() => threadNices().filter((n) => n.nice === 19).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(threadNices().find((n) => n.tid === process.pid)?.nice).toBe(0);
  });

  it('lists the intake queue on the dashboard with each job linked to its intake record', async () => {
    await invoice('OPS-200');
    const sent = await t.request('POST', '/v2/imports', { key, body: { Filename: 'OPS-200.pdf', Content: (await makePdf('OPS-200')).toString('base64') } });
    expect((await t.waitFor(key, sent.body.id)).status).toBe('attached');
    const token = t.config.adminToken!;

    const res = await fetch(`${t.svc.apiUrl}/admin/queues/api/queues?activeQueue=intake&status=completed&page=1&jobsPerPage=50`, {
      headers: { authorization: basic(token) },
    });
    expect(res.status).toBe(200);
    const queue = (await res.json()).queues.find((q: { name: string }) => q.name === 'intake');
    const job = queue.jobs.find((j: { data: { intakeId: string } }) => j.data.intakeId === sent.body.id);
    expect(Object.keys(job.data).sort()).toEqual(['accountId', 'intakeId', 'mode', 'traceId']);
    expect(job.externalUrl.href).toBe(`/admin/accounts/${job.data.accountId}/imports/${sent.body.id}?mode=live`);

    const link = `${t.svc.apiUrl}${job.externalUrl.href}`;
    expect((await fetch(link)).status).toBe(401);
    const record = await fetch(link, { headers: { authorization: basic(token) } });
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({ id: sent.body.id, account: job.data.accountId, mode: 'live', status: 'attached', filename: 'OPS-200.pdf' });
    // account and mode scope the read like any other: the wrong mode finds nothing
    expect((await fetch(link.replace('mode=live', 'mode=test'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
  });
});
