// The /v2/webhooks API without delivery (no worker role): shapes, validation, the URL rules of
// each mode, scoping by account and mode, pagination, OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

let t: TestApp;
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  // WEBHOOK_ALLOW_PRIVATE off, as in production
  t = await startTestApp();
  a = await t.createAccount();
  b = await t.createAccount();
});
afterAll(async () => t?.close());

// a public address literal: no DNS needed on this closed network
const PUBLIC = 'https://93.184.215.14/hooks';

describe('webhooks API', () => {
  it('creates with the secret once; reads, lists, patches and deletes without it', async () => {
    const created = await t.request('POST', '/v2/webhooks', { key: a.liveKey, body: { Url: PUBLIC, Events: ['invoice.paid', 'import.failed'] } });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toContain('application/hal+json');
    expect(created.body).toMatchObject({ resource: 'webhook', url: PUBLIC, events: ['invoice.paid', 'import.failed'], enabled: true });
    expect(created.body.id).toMatch(/^whk_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.id;
    const got = await t.request('GET', `/v2/webhooks/${id}`, { key: a.liveKey });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const patched = await t.request('PATCH', `/v2/webhooks/${id}`, { key: a.liveKey, body: { enabled: false, events: ['payment.created'] } });
    expect(patched.body).toMatchObject({ enabled: false, events: ['payment.created'], url: PUBLIC });
    expect(JSON.stringify((await t.request('GET', '/v2/webhooks', { key: a.liveKey })).body)).not.toContain('whsec_');
    expect((await t.request('DELETE', `/v2/webhooks/${id}`, { key: a.liveKey })).status).toBe(204);
    expect((await t.request('GET', `/v2/webhooks/${id}`, { key: a.liveKey })).status).toBe(404);
  });

  it("another account's webhook, or the other mode's, is 404 for every action", async () => {
    const id = (await t.request('POST', '/v2/webhooks', { key: a.liveKey, body: { url: PUBLIC, events: ['invoice.paid'] } })).body.id;
    for (const key of [b.liveKey, b.testKey, a.testKey]) {
      for (const [method, path] of [
        ['GET', ''],
        ['PATCH', ''],
        ['DELETE', ''],
        ['POST', '/secret'],
        ['POST', '/ping'],
        ['GET', '/deliveries'],
      ]) {
        const res = await t.request(method, `/v2/webhooks/${id}${path}`, { key, body: method === 'PATCH' ? { enabled: false } : undefined });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ status: 404, title: 'Not Found', detail: `No webhook exists with id ${id}.` });
      }
    }
    expect((await t.request('GET', '/v2/webhooks', { key: b.liveKey })).body.count).toBe(0);
    expect((await t.request('POST', '/v2/events/evt_nope/redeliver', { key: a.liveKey })).status).toBe(404);
  });

  it('live mode refuses http:// and private addresses without WEBHOOK_ALLOW_PRIVATE; test mode refuses private ones', async () => {
    const refused = async (key: string, url: string) => (await t.request('POST', '/v2/webhooks', { key, body: { url, events: ['invoice.paid'] } })).body;
    expect(await refused(a.liveKey, 'http://127.0.0.1:9/hook')).toEqual({
      status: 422,
      title: 'Unprocessable Entity',
      detail: 'Live-mode webhook URLs must use https://',
      field: 'url',
    });
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://192.168.1.1/',
      'https://localhost/x',
    ]) {
      expect(await refused(a.liveKey, url), url).toMatchObject({ status: 422, field: 'url' });
      expect(await refused(a.testKey, url), url).toMatchObject({ status: 422, field: 'url' });
    }
    expect(await refused(a.testKey, 'http://93.184.215.14/x')).toMatchObject({ resource: 'webhook' });
    const patch = await t.request('PATCH', `/v2/webhooks/${(await refused(a.liveKey, PUBLIC)).id}`, { key: a.liveKey, body: { url: 'http://127.0.0.1/x' } });
    expect(patch.status).toBe(422);
  });

  it('refuses the IPv6 forms of loopback and private addresses (IPv4-compatible, translated, NAT64, 6to4, ULA, link-local)', async () => {
    const create = (key: string, url: string) => t.request('POST', '/v2/webhooks', { key, body: { url, events: ['invoice.paid'] } });
    for (const url of [
      'http://[::7f00:1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[::127.0.0.1]/hook',
      'http://[64:ff9b::7f00:1]/',
      'http://[64:ff9b:1::a00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2002:a9fe:a9fe::]/latest',
      'http://[fd00:ec2::254]/',
      'http://[fe80::1]/',
      'http://[2001:db8::1]/',
      'http://[ff02::1]/',
    ]) {
      const res = await create(a.testKey, url);
      expect(res.status, url).toBe(422);
      expect(res.body, url).toMatchObject({
        status: 422,
        title: 'Unprocessable Entity',
        field: 'url',
        detail: expect.stringMatching(/loopback, private, link-local or reserved/),
      });
      expect((await create(a.liveKey, url.replace('http:', 'https:'))).status, url).toBe(422);
    }
    // a public IPv4 address in its mapped form is that public address
    expect((await create(a.testKey, 'http://[::ffff:93.184.215.14]/x')).status).toBe(201);
  });

  it('answers the spec error bodies for bad input', async () => {
    const post = (body: unknown) => t.request('POST', '/v2/webhooks', { key: a.testKey, body });
    expect((await post({ events: ['invoice.paid'] })).body).toMatchObject({ status: 400, field: 'url' });
    expect((await post({ url: PUBLIC })).body).toMatchObject({ status: 400, field: 'events' });
    expect((await post({ url: PUBLIC, events: ['invoice.created'] })).body).toMatchObject({ status: 400, field: 'events' });
    expect((await post({ url: PUBLIC, events: [] })).body).toMatchObject({ status: 400, field: 'events' });
    expect((await post({ url: 'not a url', events: ['invoice.paid'] })).body).toMatchObject({ status: 422, field: 'url' });
    expect((await t.request('GET', '/v2/webhooks?limit=0', { key: a.testKey })).body).toMatchObject({ status: 400, field: 'limit' });
  });

  it('pages newest first with links', async () => {
    const key = b.testKey;
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await t.request('POST', '/v2/webhooks', { key, body: { url: `${PUBLIC}/${i}`, events: ['payment.created'] } })).body.id);
    const first = await t.request('GET', '/v2/webhooks?limit=2', { key });
    expect(first.body.webhooks.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.links.next.href).toContain(`from=${ids[0]}`);
    const next = await t.request('GET', `/v2/webhooks?limit=2&from=${ids[0]}`, { key });
    expect(next.body.webhooks.map((w: any) => w.id)).toEqual([ids[0]]);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/v2/openapi.json')).body;
    for (const p of [
      '/v2/webhooks',
      '/v2/webhooks/{webhook_id}',
      '/v2/webhooks/{webhook_id}/secret',
      '/v2/webhooks/{webhook_id}/deliveries',
      '/v2/webhooks/{webhook_id}/ping',
      '/v2/events/{event_id}/redeliver',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });
});
