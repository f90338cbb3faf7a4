import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { boardAdapters } from '../../src/queue/board-adapters.ts';
import { queueDashboard } from '../../src/http/plugins/queue-dashboard.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const prefix = `iitest${randomToken(8)}`;
const connection = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const intake = new Queue('intake', { connection, prefix });
const other = new Queue('maintenance', { connection, prefix });
let t: TestApp;

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

beforeAll(async () => {
  t = await startTestApp({
    config: { redisPrefix: prefix },
    server: (c) => ({
      adminPlugins: [
        queueDashboard({
          jobs: { board: (o) => boardAdapters([intake, other], o) },
          adminToken: c.config.adminToken!,
          jobLink: (data) => (typeof data.intakeId === 'string' ? { href: `/admin/intakes/${data.intakeId}`, displayText: 'intake record' } : undefined),
        }),
      ],
    }),
  });
  // one job that completes, and two that fail for good
  await intake.add('attach', { intakeId: 'imp_ok1', accountId: 'acc_1', mode: 'live' });
  await intake.add('attach', { intakeId: 'imp_bad1', accountId: 'acc_1', mode: 'live' });
  await intake.add('attach', {
    intakeId: 'imp_bad2',
    accountId: 'acc_1',
    mode: 'test',
    apiKey: 'live_secret',
    bytes: Buffer.from('%PDF-1.7 ...'),
    content: 'JVBERi0=',
  });
  const worker = new Worker(
    'intake',
    async (job) => {
      if (job.data.intakeId !== 'imp_ok1') throw new UnrecoverableError(`no invoice for ${job.data.intakeId}`);
    },
    { connection: connection.duplicate(), prefix },
  );
  await new Promise<void>((resolve) => {
    let n = 0;
    const tick = () => ++n === 3 && resolve();
    worker.on('completed', tick);
    worker.on('failed', tick);
  });
  await worker.close();
});

afterAll(async () => {
  for (const q of [intake, other]) {
    await q.obliterate({ force: true }).catch(() => {});
    await q.close();
  }
  connection.disconnect();
  await t?.close();
});

async function board(method: string, url: string, authorization?: string) {
  const res = await t.request(method, url, { headers: authorization ? { authorization } : {} });
  const body = res.raw.toString('utf8');
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body) };
}

describe('queue dashboard at /admin/queues', () => {
  it('is refused without the admin credentials, with a Basic challenge for browsers', async () => {
    for (const authorization of [undefined, 'Bearer wrong', basic('admin', 'wrong'), basic(t.adminToken, ''), 'Basic !!!', t.adminToken]) {
      for (const url of ['/admin/queues', '/admin/queues/queue/intake', '/admin/queues/api/queues']) {
        const res = await board('GET', url, authorization);
        expect(res.status, `${url} with ${authorization}`).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Basic realm="invoice-intake admin"/);
        expect(res.body).not.toContain('intake record');
      }
    }
    const action = await board('PUT', '/admin/queues/api/queues/intake/retry/failed');
    expect(action.status).toBe(401);
    expect(await intake.getJobCountByTypes('failed')).toBe(2);
  });

  it('serves the board with the token as Bearer (scripts) and as the Basic password (browsers)', async () => {
    for (const authorization of [`Bearer ${t.adminToken}`, basic('ops', t.adminToken), basic('', t.adminToken)]) {
      const page = await board('GET', '/admin/queues', authorization);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<base href="/admin/queues/" />');
      const api = await board('GET', '/admin/queues/api/queues?activeQueue=intake&status=latest&page=1&jobsPerPage=10', authorization);
      expect(api.status).toBe(200);
      expect(
        api
          .json()
          .queues.map((q: { name: string }) => q.name)
          .sort(),
      ).toEqual(['intake', 'maintenance']);
    }
    // the static assets the page loads are behind the same credentials
    const page = await board('GET', '/admin/queues', `Bearer ${t.adminToken}`);
    const asset = `/admin/queues/${/static\/js\/main\.[^"']+\.js/.exec(page.body)![0]}`;
    expect((await board('GET', asset)).status).toBe(401);
    expect((await board('GET', asset, basic('x', t.adminToken))).status).toBe(200);
  });

  it('shows job data without keys or bytes, and links each job to its intake record', async () => {
    const res = await board('GET', '/admin/queues/api/queues?activeQueue=intake&status=failed&page=1&jobsPerPage=50', `Bearer ${t.adminToken}`);
    expect(res.status).toBe(200);
    const q = res.json().queues.find((x: { name: string }) => x.name === 'intake');
    expect(q.counts).toMatchObject({ completed: 1, failed: 2 });
    const jobs = q.jobs as { data: Record<string, unknown>; externalUrl?: { href: string }; failedReason: string }[];
    expect(jobs).toHaveLength(2);
    const bad2 = jobs.find((j) => j.data.intakeId === 'imp_bad2')!;
    expect(bad2.data).toEqual({ intakeId: 'imp_bad2', accountId: 'acc_1', mode: 'test', apiKey: '[omitted]', bytes: '[omitted]', content: '[omitted]' });
    expect(res.body).not.toContain('live_secret');
    expect(res.body).not.toContain('JVBERi0');
    expect(bad2.externalUrl).toEqual({ href: '/admin/intakes/imp_bad2', displayText: 'intake record' });
    expect(bad2.failedReason).toBe('no invoice for imp_bad2');
    // one job, by id, is redacted the same way
    const job = await board(
      'GET',
      `/admin/queues/api/queues/intake/${(await intake.getFailed()).find((j) => j.data.intakeId === 'imp_bad2')!.id}`,
      `Bearer ${t.adminToken}`,
    );
    expect(job.status).toBe(200);
    expect(job.body).not.toContain('live_secret');
    expect(job.json().job.data.apiKey).toBe('[omitted]');
  });

  it('retries a failed job and cleans a finished one for the admin', async () => {
    const auth = basic('ops', t.adminToken);
    const failed = await intake.getFailed();
    const one = failed.find((j) => j.data.intakeId === 'imp_bad1')!;
    const retry = await board('PUT', `/admin/queues/api/queues/intake/${one.id}/retry`, auth);
    expect(retry.status).toBeLessThan(300);
    expect(await (await intake.getJob(one.id!))!.getState()).toBe('waiting');
    expect(await intake.getJobCountByTypes('failed')).toBe(1);

    const [done] = await intake.getCompleted();
    const clean = await board('PUT', `/admin/queues/api/queues/intake/${done.id}/clean`, auth);
    expect(clean.status).toBeLessThan(300);
    expect(await intake.getJob(done.id!)).toBeUndefined();
    expect(await intake.getJobCountByTypes('completed')).toBe(0);
  });
});

describe('queue dashboard actions refuse cross-site requests', () => {
  const auth = () => basic('ops', t.adminToken);
  const added = async () => (await other.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'])).length;
  const expectRefused = (res: { status: number; headers: Record<string, unknown>; raw: Buffer }) => {
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(JSON.parse(res.raw.toString('utf8'))).toMatchObject({ status: 403, title: 'Forbidden', detail: expect.any(String) });
  };

  it('refuses a cross-site form post under cached Basic credentials, and adds no job', async () => {
    const before = await added();
    const attempts: { headers: Record<string, string>; form?: Record<string, string>; body?: string }[] = [
      // the review's finding: a form on another site posting to the board
      { headers: { origin: 'http://evil.example' }, form: { name: 'x', data: '{}' } },
      // no Origin, but the browser says cross-site
      { headers: { 'sec-fetch-site': 'cross-site' }, form: { name: 'x' } },
      { headers: { origin: 'null' }, form: { name: 'x' } },
      // JSON from another origin (a fetch with CORS would need a preflight; refused all the same)
      { headers: { origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{"name":"x","data":{}}' },
      { headers: { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' }, body: '{"name":"x","data":{}}' },
      // same origin but form-encoded or text/plain (what a form can send without a preflight)
      { headers: { origin: 'http://localhost' }, form: { name: 'x' } },
      { headers: { 'content-type': 'text/plain' }, body: '{"name":"x","data":{}}' },
      { headers: { 'content-type': 'multipart/form-data; boundary=b' }, body: '--b--\r\n' },
    ];
    for (const a of attempts) {
      const res = await t.request('POST', '/admin/queues/api/queues/maintenance/add', {
        headers: { authorization: auth(), ...a.headers },
        form: a.form,
        body: a.body,
      });
      expectRefused(res);
    }
    // every state-changing method, not only POST
    for (const [method, url] of [
      ['PUT', '/admin/queues/api/queues/intake/retry/failed'],
      ['PUT', '/admin/queues/api/queues/maintenance/pause'],
      ['PUT', '/admin/queues/api/queues/maintenance/empty'],
      ['PUT', '/admin/queues/api/queues/maintenance/obliterate'],
    ]) {
      expectRefused(await t.request(method, url, { headers: { authorization: auth(), origin: 'http://evil.example' } }));
    }
    expect(await added()).toBe(before);
    expect(await other.isPaused()).toBe(false);
  });

  it('still takes the board’s own same-origin JSON requests, and scripts without a browser’s headers', async () => {
    const before = await added();
    const own = await t.request('POST', '/admin/queues/api/queues/maintenance/add', {
      headers: { authorization: auth(), origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
      body: { name: 'from-board', data: { note: 'same origin' }, options: {} },
    });
    expect(own.status).toBeLessThan(300);
    const script = await t.request('POST', '/admin/queues/api/queues/maintenance/add', { key: t.adminToken, body: { name: 'from-script', data: {} } });
    expect(script.status).toBeLessThan(300);
    expect(await added()).toBe(before + 2);
    expect((await other.getJobs(['waiting'])).map((j) => j.name).sort()).toEqual(['from-board', 'from-script']);
    // a body-less action from the page (axios sends no Content-Type)
    const pause = await t.request('PUT', '/admin/queues/api/queues/maintenance/pause', {
      headers: { authorization: auth(), origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
    });
    expect(pause.status).toBeLessThan(300);
    expect(await other.isPaused()).toBe(true);
    await other.resume();
  });
});
