// Errors met before a route runs: what Node's HTTP parser refuses (over a real socket), missing
// static files, and whom X-Forwarded-* is believed from.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueDashboard } from '../../src/http/plugins/queue-dashboard.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp({
    config: { rateLimitMax: 3 },
    server: (c) => ({ adminPlugins: [queueDashboard({ jobs: c.jobs, adminToken: c.config.adminToken! })] }),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(() => t?.close());

/** Writes raw bytes and reads the whole answer until the server closes the connection. */
function raw(request: string, to = port): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(to, '127.0.0.1', () => socket.write(request));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined });
    });
  });
}

describe('requests the HTTP parser refuses get the spec error body', () => {
  const cases: [string, string, number][] = [
    ['a 16 KB header', `GET /v2/customers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 431],
    ['a 64 KB URL', `GET /v2/customers?q=${'a'.repeat(65_536)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['an unknown method', 'BREW /v2/customers HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a NUL in a header', 'GET /v2/customers HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n', 400],
    ['a folded header line', 'GET /v2/customers HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  folded\r\n\r\n', 400],
    [
      'Content-Length with Transfer-Encoding',
      'POST /v2/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['a space in the path', 'GET /v2/cust omers HTTP/1.1\r\nHost: x\r\n\r\n', 400],
  ];
  for (const [name, request, status] of cases) {
    it(`${name}: ${status}`, async () => {
      const res = await raw(request);
      expect(res.status).toBe(status);
      expect(res.headers).toContain('content-type: application/hal+json');
      expect(Object.keys(res.body).sort()).toEqual(['detail', 'status', 'title']);
      expect(res.body.status).toBe(status);
      expect(res.body.detail.length).toBeGreaterThan(10);
    });
  }

  it('a request not received in time (REQUEST_TIMEOUT_MS): 408', async () => {
    const slow = await t.anotherNode({ config: { requestTimeoutMs: 500 } });
    try {
      await slow.app.listen({ port: 0, host: '127.0.0.1' });
      const res = await raw('GET /v2/customers HTTP/1.1\r\nHost: x\r\n', (slow.app.server.address() as net.AddressInfo).port); // the headers never end
      expect(res.status).toBe(408);
      expect(res.body).toEqual({ status: 408, title: 'Request Timeout', detail: 'The request was not received in time' });
    } finally {
      await slow.close();
    }
  });
});

describe('GET /', () => {
  it('leads to the docs (the dashboard is linked where it runs: test/ops/start-up.test.ts)', async () => {
    const res = await t.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const links = [...res.raw.toString().matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1]); // the page's links, not its stylesheet and icon
    expect(links).toEqual(['/docs', '/v2/openapi.json']);
    for (const link of links) expect((await t.request('GET', link)).status, link).toBeLessThan(400);
  });
});

describe('missing static files', () => {
  it('answer 404 naming no method, under /docs/static/ and /admin/queues/static/', async () => {
    const page = await t.request('GET', '/admin/queues', { headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(page.status).toBe(200);
    for (const url of ['/docs/static/nope.js', '/admin/queues/static/nope.js']) {
      const res = await t.request('GET', url, { headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(res.status, url).toBe(404);
      expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
    }
    // a method the route does not take is still a 405
    expect((await t.request('DELETE', '/docs/static/nope.js')).status).toBe(405);
  });
});

describe('TRUST_PROXY', () => {
  it("off by default: a forged X-Forwarded-For is counted in the real client's bucket (req.ip, the address the logs show)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/v2/customers`, {
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}`, 'x-forwarded-host': 'evil.example' },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('links use the real host unless a trusted proxy says otherwise', async () => {
    const acct = await t.createAccount();
    const res = await t.request('POST', '/v2/customers', {
      key: acct.liveKey,
      body: { customerCode: 'P-1', name: 'P' },
      headers: { host: 'api.local', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(JSON.stringify(res.body._links)).toContain('http://api.local/');
    expect(JSON.stringify(res.body._links)).not.toContain('evil');
    const proxied = await startTestApp({ db: { ...t.db, close: async () => {} }, config: { trustProxy: ['127.0.0.1'] } });
    try {
      const via = await proxied.request('GET', `/v2/customers/${res.body.id}`, {
        key: acct.liveKey,
        headers: { 'x-forwarded-host': 'invoices.example', 'x-forwarded-proto': 'https' },
      });
      expect(via.body._links.self.href).toMatch(/^https:\/\/invoices\.example\//);
    } finally {
      await proxied.close();
    }
  });
});
