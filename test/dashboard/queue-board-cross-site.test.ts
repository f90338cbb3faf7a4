// Bull Board in a real browser that holds the operator's Basic credentials: a page on another
// site posting a form to the board adds no job; the board's own page still acts (same origin, JSON).
import http from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queuePrefix } from '../../src/queue/job-definition.ts';
import { freePort } from '../../testkit/ports.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let d: DashboardApp;
let evil: http.Server;
let evilUrl: string;
let connection: Redis;
let periodic: Queue;

const marked = async (marker: string) =>
  (await periodic.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'])).filter((j) => j?.data?.marker === marker).length;

beforeAll(async () => {
  d = await startDashboardApp();
  connection = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  periodic = new Queue('periodic', { connection, prefix: queuePrefix(d.config) });
  // "localhost" is another site than "127.0.0.1" for the browser
  const port = await freePort();
  evilUrl = `http://localhost:${port}`;
  evil = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><form id="f" method="post" action="${d.url}/admin/queues/api/queues/periodic/add">
      <input name="name" value="statistics.analyze"><input name="data[marker]" value="evil"></form>
      <script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => evil.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  await periodic?.close();
  connection?.disconnect();
  await new Promise((resolve) => evil?.close(resolve));
  await d?.close();
});

it('a cross-site form post under cached Basic credentials is refused and adds no job; the board’s own JSON post works', async () => {
  const context = await d.browser.newContext({ httpCredentials: { username: 'ops', password: d.config.adminToken! } });
  const page = await context.newPage();
  // the operator has the board open (the browser now holds the credentials)
  await page.goto(`${d.url}/admin/queues`);
  expect(await page.title()).toContain('invoice-intake queues');

  const refused = page.waitForResponse((r) => r.url().endsWith('/admin/queues/api/queues/periodic/add'));
  await page.goto(evilUrl);
  const answer = await refused;
  expect(answer.status()).toBe(403);
  expect((await answer.request().allHeaders()).authorization).toMatch(/^Basic /);
  expect(await answer.json()).toMatchObject({ status: 403, title: 'Forbidden' });
  expect(await marked('evil')).toBe(0);

  // the board's own page calls its API as the board does (axios: JSON, same origin)
  await page.goto(`${d.url}/admin/queues`);
  const status = await page.evaluate(async () => {
    const res = await fetch('api/queues/periodic/add', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'statistics.analyze', data: { marker: 'board' }, options: {} }),
    });
    return res.status;
  });
  expect(status).toBe(200);
  expect(await marked('board')).toBe(1);
  await context.close();
});
