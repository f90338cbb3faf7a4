// The OpenAPI document covers every /v2 route and is built from the schemas the routes validate
// with; every /v2 route needs a key; it and the admin API's document pass Redocly's lint; docs and
// health endpoints answer.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';
import { apiTest } from '../helpers/api-test.ts';
import type { TestApp } from '../helpers/test-app.ts';

// every /v2 route the service has, the intake and webhook routes included
const it = apiTest.extend('spec', { scope: 'file' }, async ({ t }): Promise<any> => (await t.request('GET', '/v2/openapi.json')).body);

/** Every (method, path) the server has, read from app.printRoutes() (a tree, one node per line). */
function registeredRoutes(app: TestApp['app']): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) out.push({ method, path: stack.join('') });
  }
  return out;
}
/** `/v2/x/:a|:b/y` and `/v2/x/{a}/y` both become `/v2/x/{}/y`. */
const shape = (path: string) => path.replace(/:[^/]+/g, '{}').replace(/\{[^}]*\}/g, '{}');

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('OpenAPI', () => {
  it('is served at /v2/openapi.json as OpenAPI 3 without a key', async ({ t }) => {
    const res = await t.request('GET', '/v2/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('holds every registered /v2 route (except the document itself)', ({ t, spec }) => {
    const routes = registeredRoutes(t.app).filter((r) => r.path.startsWith('/v2/') && r.path !== '/v2/openapi.json' && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThanOrEqual(17);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<any>(spec.paths)) for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${shape(path)}`);
    for (const r of routes) expect(documented, `${r.method} ${r.path}`).toContain(`${r.method} ${shape(r.path)}`);
    for (const [path, ops] of Object.entries<any>(spec.paths)) {
      if (!path.startsWith('/v2/')) continue;
      for (const op of Object.values<any>(ops)) expect(op.security, path).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('every /v2 route answers 401 without a key', async ({ t }) => {
    const routes = registeredRoutes(t.app).filter((r) => r.path.startsWith('/v2/') && r.path !== '/v2/openapi.json');
    for (const r of routes) {
      const url = r.path.replace(/:[^/]+/g, 'x1');
      const res = await t.app.inject({ method: r.method as any, url, ...(['POST', 'PATCH'].includes(r.method) ? { payload: {} } : {}) });
      expect(res.statusCode, `${r.method} ${url}`).toBe(401);
      const wrong = await t.app.inject({ method: r.method as any, url, headers: { authorization: `Bearer live_${'0'.repeat(40)}` } });
      expect(wrong.statusCode, `${r.method} ${url} wrong key`).toBe(401);
    }
  });

  it('is generated from the validation schemas: limits and required fields match', ({ spec }) => {
    const body = (path: string, method: string) => spec.paths[path][method].requestBody.content['application/json'].schema;
    const customer = body('/v2/customers', 'post');
    expect(customer.required).toEqual(expect.arrayContaining(['customerCode', 'name']));
    expect(customer.properties.customerCode.maxLength).toBe(250);
    expect(customer.properties.postalcode.maxLength).toBe(10);
    expect(customer.properties.phone.maxLength).toBe(20);
    expect(customer.properties.country.maxLength).toBe(2);
    expect(body('/v2/invoices', 'post').properties.invoiceNumber.maxLength).toBe(100);
    expect(body('/v2/invoices', 'post').properties.customer.maxLength).toBe(36);
    expect(body('/v2/documents', 'post').properties.content.maxLength).toBe(5_242_880);
    expect(body('/v2/documents', 'post').properties.mediatype.maxLength).toBe(50);
    expect(Object.keys(spec.paths['/v2/invoices'].post.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    const ok = spec.paths['/v2/invoices/{invoice_id}'].get.responses['200'].content;
    expect(Object.keys(ok)).toEqual(['application/hal+json']);
    expect(ok['application/hal+json'].schema.properties.invoiceTotal.type).toBe('string');
    // amounts may be negative (credit notes): the patterns the document publishes say so
    const written = new RegExp(ok['application/hal+json'].schema.properties.invoiceTotal.pattern);
    expect(['480.00', '-233.47', '0.00'].map((a) => written.test(a))).toEqual([true, true, true]);
    expect(['480', '-8.7', '--1.00'].map((a) => written.test(a))).toEqual([false, false, false]);
    for (const [path, field] of [
      ['/v2/invoices', 'invoiceTotal'],
      ['/v2/invoices', 'invoiceBalance'],
      ['/v2/payments', 'amount'],
    ]) {
      expect(body(path, 'post').properties[field].description, `${path} ${field}`).toContain('negative for a credit note (-233.47)');
    }
    const err = spec.paths['/v2/invoices/{invoice_id}'].get.responses['404'].content['application/hal+json'].schema;
    expect(Object.keys(err.properties)).toEqual(['status', 'title', 'detail', 'field']);
    expect(spec.paths['/v2/documents/{document_id}/content'].get.responses['200'].content['application/pdf']).toBeDefined();
  });
});

describe('the OpenAPI documents', () => {
  it('list the servers, keep the admin routes in a document of their own, behind the admin token', async ({ t, spec }) => {
    expect(spec.servers).toEqual([{ url: '/', description: 'this installation' }]);
    expect(Object.keys(spec.paths).filter((p) => !p.startsWith('/v2/'))).toEqual([]);
    expect(spec.paths['/v2/imports'].post).toBeDefined();
    expect(spec.paths['/v2/webhooks'].post).toBeDefined();
    expect((await t.request('GET', '/admin/openapi.json')).status).toBe(401);
    const admin = (await t.request('GET', '/admin/openapi.json', { headers: { authorization: `Bearer ${t.adminToken}` } })).body;
    expect(admin.servers).toEqual(spec.servers);
    expect(Object.keys(admin.paths).length).toBeGreaterThanOrEqual(6);
    expect(Object.keys(admin.paths).filter((p) => !p.startsWith('/admin/'))).toEqual([]);
    expect(admin.paths['/admin/accounts'].get.security).toEqual([{ adminAuth: [] }]);
    // one path for the document routes, each operation naming the id it takes
    const docs = spec.paths['/v2/documents/{id}'];
    expect(Object.keys(docs).sort()).toEqual(['delete', 'get', 'post']);
    expect(docs.post.parameters[0].description).toMatch(/invoice/i);
  });

  it('pass `redocly lint` with its recommended rules and no error', async ({ t, spec }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-openapi-'));
    const admin = (await t.request('GET', '/admin/openapi.json', { headers: { authorization: `Bearer ${t.adminToken}` } })).body;
    for (const [name, doc] of [
      ['api', spec],
      ['admin', admin],
    ] as const) {
      const file = path.join(dir, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify(doc));
      const { stdout } = await promisify(execFile)(
        path.join(ROOT, 'node_modules/.bin/redocly'),
        ['lint', '--extends', 'recommended', '--format', 'json', file],
        {
          cwd: dir, // no redocly.yaml here: the built-in recommended rules only
          env: { PATH: process.env.PATH, HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      ).catch((e) => e as { stdout: string });
      const report = JSON.parse(stdout) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
      expect(
        report.problems.filter((p) => p.severity === 'error'),
        name,
      ).toEqual([]);
      expect(report.totals.errors, name).toBe(0);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('docs and health', () => {
  it('serves the browsable docs at /docs', async ({ t }) => {
    let res = await t.app.inject({ method: 'GET', url: '/docs' });
    if (res.statusCode >= 300 && res.statusCode < 400)
      res = await t.app.inject({ method: 'GET', url: new URL(String(res.headers.location), 'http://x/docs/').pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toMatch(/swagger/i);
  });

  it('/healthz answers 200 and /readyz checks the database and Redis', async ({ t }) => {
    const health = await t.request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });

  it('/readyz reports a failing extra check as 503', async ({ t }) => {
    const t2 = await t.anotherNode({
      server: {
        readiness: new Map([
          [
            'ftp',
            async () => {
              throw new Error('not listening');
            },
          ],
        ]),
      },
    });
    try {
      const res = await t2.request('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not ready', checks: { database: 'ok', redis: 'ok', ftp: 'failing: not listening' } });
    } finally {
      await t2.close();
    }
  });

  it('without an admin token the admin API does not exist', async ({ t }) => {
    const t2 = await t.anotherNode({ server: { adminToken: undefined } });
    try {
      expect((await t2.request('POST', '/admin/accounts', { headers: { authorization: 'Bearer x' }, body: { name: 'n' } })).status).toBe(404);
    } finally {
      await t2.close();
    }
  });
});
