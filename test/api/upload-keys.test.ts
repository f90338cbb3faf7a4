// Upload keys (issue 44) through the API: made (shown once, stored hashed), listed, revoked; an
// upload key opens POST /v2/imports and GET /v2/imports (only its own files) and nothing else
// (every other /v2 route of the OpenAPI document answers 403 and changes nothing); its networks
// are checked against the address a real client (curl) connects from; a revocation or a disabled
// account fails it within 1 s on another node that had it cached.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { expectError } from '../helpers/error-body.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

const run = promisify(execFile);
let t: TestApp; // node A
let b: TestApp; // node B: same database and Redis prefix, both caching keys for a minute
let a: TestAccount;
let pdf: Buffer;
let base: string;

beforeAll(async () => {
  const redisPrefix = `iitest${randomToken(8)}`;
  t = await startTestApp({ config: { redisPrefix, keyCacheMs: 60_000 } });
  b = await t.anotherNode({ config: { redisPrefix, keyCacheMs: 60_000 } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.app.server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  a = await t.createAccount();
  pdf = await makePdf('upload key');
});
afterAll(async () => {
  await b?.close();
  await t?.close();
});

const make = async (key: string, body: Record<string, unknown>) => {
  const res = await t.request('POST', '/v2/account/upload-keys', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; key: string; name: string; hint: string; networks: string[]; mode: string };
};
const hand = (node: TestApp, key: string, filename: string) =>
  node.request('POST', '/v2/imports', { key, body: { filename, content: pdf.toString('base64') } });
const curl = async (key: string, path: string) => {
  const { stdout } = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-H', `authorization: Bearer ${key}`, `${base}${path}`]);
  return Number(stdout);
};

describe('upload keys: made, listed, revoked', () => {
  it('shows the key once, stores only its SHA-256, lists it without the key, revokes it (then 401 everywhere, 404 again)', async () => {
    const made = await make(a.liveKey, { Name: '  Exact export job ', Networks: ['192.0.2.0/24', '2001:DB8::/32', '198.51.100.7'] });
    expect(made).toMatchObject({
      resource: 'upload-key',
      id: expect.stringMatching(/^upk_/),
      mode: 'live',
      name: 'Exact export job',
      networks: ['192.0.2.0/24', '2001:db8::/32', '198.51.100.7/32'],
      lastUsed: null,
    });
    expect(made.key).toMatch(/^live_up_[0-9A-Za-z]{40}$/);
    expect(made.hint).toBe(`${made.key.slice(0, 12)}...${made.key.slice(-4)}`);
    const rows = await t.db.query<Record<string, unknown>>('select * from upload_keys where id = $1', [made.id]);
    expect(rows[0].hash).toBe(createHash('sha256').update(made.key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(made.key.slice(8));

    const list = await t.request('GET', '/v2/account/upload-keys', { key: a.liveKey });
    expect(list.status).toBe(200);
    const listed = list.body.uploadKeys.find((k: { id: string }) => k.id === made.id);
    expect(listed).toEqual({
      resource: 'upload-key',
      id: made.id,
      mode: 'live',
      name: 'Exact export job',
      hint: made.hint,
      networks: made.networks,
      createdAt: expect.any(String),
      lastUsed: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(made.key.slice(8));
    // the other mode's list is its own
    expect((await t.request('GET', '/v2/account/upload-keys', { key: a.testKey })).body.uploadKeys).toEqual([]);

    const other = await t.createAccount();
    expectError(await t.request('DELETE', `/v2/account/upload-keys/${made.id}`, { key: other.liveKey }), 404);
    expectError(await t.request('DELETE', `/v2/account/upload-keys/${made.id}`, { key: a.testKey }), 404);
    expect((await t.request('DELETE', `/v2/account/upload-keys/${made.id}`, { key: a.liveKey })).status).toBe(204);
    expectError(await t.request('DELETE', `/v2/account/upload-keys/${made.id}`, { key: a.liveKey }), 404);
    expect((await t.request('GET', '/v2/account/upload-keys', { key: a.liveKey })).body.uploadKeys.map((k: { id: string }) => k.id)).not.toContain(made.id);

    // the trail: who made and revoked it, from where, never the key
    const trail = await t.c.trail.page({ accountId: a.id, action: 'upload_key' }, { limit: 10 });
    const mine = trail.items.filter((e) => e.target === made.id);
    expect(mine.map((e) => e.action).sort()).toEqual(['upload_key.created', 'upload_key.revoked']);
    for (const e of mine) {
      expect(e).toMatchObject({
        mode: 'live',
        actor: { kind: 'api_key', id: null, label: 'API key (live)' },
        address: '127.0.0.1',
        detail: { name: 'Exact export job', hint: made.hint },
      });
      expect(JSON.stringify(e)).not.toContain(made.key.slice(8));
    }
  });

  it('refuses a missing or long name and a network that is no CIDR block (400 with the field), and no key (401)', async () => {
    expectError(await t.request('POST', '/v2/account/upload-keys', { key: a.liveKey, body: {} }), 400, undefined, 'name');
    expectError(await t.request('POST', '/v2/account/upload-keys', { key: a.liveKey, body: { name: '   ' } }), 400, undefined, 'name');
    expectError(await t.request('POST', '/v2/account/upload-keys', { key: a.liveKey, body: { name: 'x'.repeat(101) } }), 400, undefined, 'name');
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0/8', '::/129', '']) {
      expectError(
        await t.request('POST', '/v2/account/upload-keys', { key: a.liveKey, body: { name: 'Scanner', networks: [bad] } }),
        400,
        undefined,
        'networks',
      );
    }
    expectError(await t.request('POST', '/v2/account/upload-keys', { key: a.liveKey, body: { name: 'Scanner', networks: 42 } }), 400, undefined, 'networks');
    expectError(await t.request('POST', '/v2/account/upload-keys', { body: { name: 'Scanner' } }), 401);
  });
});

describe('what an upload key opens', () => {
  it('POST /v2/imports, and GET /v2/imports listing only what that key brought', async () => {
    const acct = await t.createAccount();
    const up = await make(acct.liveKey, { name: 'Ricoh 3rd floor' });
    const up2 = await make(acct.liveKey, { name: 'Exact export job' });
    const mine = await hand(t, up.key, 'by-upload-key.pdf');
    expect(mine.status).toBe(202);
    expect(mine.body).toMatchObject({ channel: 'http', filename: 'by-upload-key.pdf', uploadKey: up.id });
    expect((await hand(t, up2.key, 'by-the-other-key.pdf')).status).toBe(202);
    const byApiKey = await hand(t, acct.liveKey, 'by-api-key.pdf');
    expect(byApiKey.body.uploadKey).toBeNull();

    const listed = await t.request('GET', '/v2/imports', { key: up.key });
    expect(listed.status).toBe(200);
    expect(listed.body.imports.map((i: { id: string }) => i.id)).toEqual([mine.body.id]);
    expect((await t.request('GET', '/v2/imports?status=failed', { key: up.key })).body.imports).toEqual([]);
    // the API key sees all three
    expect((await t.request('GET', '/v2/imports', { key: acct.liveKey })).body.imports).toHaveLength(3);
  });

  it('answers 403 with the error body on every other /v2 route of the OpenAPI document, and changes nothing', async () => {
    const acct = await t.createAccount();
    const up = await make(acct.liveKey, { name: 'Scanner' });
    const spec = (await t.request('GET', '/v2/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const before = await t.db.query<{ n: number }>(
      'select (select count(*) from customers where account_id = $1)::int + (select count(*) from upload_keys where account_id = $1)::int + (select count(*) from webhooks where account_id = $1)::int as n',
      [acct.id],
    );
    let checked = 0;
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const method of Object.keys(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const m = method.toUpperCase();
        if (path === '/v2/imports' && (m === 'GET' || m === 'POST')) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x_123');
        const res = await t.request(m, url, {
          key: up.key,
          ...(m === 'GET' || m === 'DELETE' ? {} : { body: { name: 'Changed', filename: 'a.pdf', content: 'AA==' } }),
        });
        expectError(res, 403, 'An upload key opens only POST /v2/imports and GET /v2/imports; this needs the API key');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    const after = await t.db.query<{ n: number }>(
      'select (select count(*) from customers where account_id = $1)::int + (select count(*) from upload_keys where account_id = $1)::int + (select count(*) from webhooks where account_id = $1)::int as n',
      [acct.id],
    );
    expect(after).toEqual(before);
  });

  it("another account's or a revoked key: 401; the test mode's upload key opens test mode only", async () => {
    const acct = await t.createAccount();
    const up = await make(acct.testKey, { name: 'Test job' });
    expect(up.key).toMatch(/^test_up_/);
    const res = await hand(t, up.key, 'test-file.pdf');
    expect(res.status).toBe(202);
    expect((await t.request('GET', '/v2/imports', { key: acct.liveKey })).body.imports).toEqual([]);
    expect((await t.request('GET', '/v2/imports', { key: acct.testKey })).body.imports.map((i: { id: string }) => i.id)).toEqual([res.body.id]);
    expectError(await t.request('GET', '/v2/imports', { key: `live_up_${randomToken(40)}` }), 401);
    await t.request('DELETE', `/v2/account/upload-keys/${up.id}`, { key: acct.testKey });
    expectError(await hand(t, up.key, 'after-revoke.pdf'), 401);
  });
});

describe('networks, last use, other nodes', () => {
  it('works from its networks only (curl from 127.0.0.1), and shows when and from where it was last used', async () => {
    const acct = await t.createAccount();
    const inside = await make(acct.liveKey, { name: 'Local job', networks: ['127.0.0.0/8'] });
    const outside = await make(acct.liveKey, { name: 'Office scanner', networks: ['192.0.2.0/24', '2001:db8::/32'] });
    expect(await curl(inside.key, '/v2/imports')).toBe(200);
    expect(await curl(outside.key, '/v2/imports')).toBe(403);
    const refused = await t.request('GET', '/v2/imports', { key: outside.key });
    expectError(refused, 403, /^This upload key may not be used from 127\.0\.0\.1: it is limited to the networks it was made for$/);
    await expect
      .poll(
        async () =>
          (await t.request('GET', '/v2/account/upload-keys', { key: acct.liveKey })).body.uploadKeys.find((k: { id: string }) => k.id === inside.id).lastUsed,
      )
      .toEqual({ at: expect.any(String), address: '127.0.0.1', channel: 'http' });
    const keys = (await t.request('GET', '/v2/account/upload-keys', { key: acct.liveKey })).body.uploadKeys;
    expect(keys.find((k: { id: string }) => k.id === outside.id).lastUsed).toBeNull();
  });

  it('a revocation on node A fails the key within 1 s on node B, which had it cached; so does disabling the account', async () => {
    const acct = await t.createAccount();
    const up = await make(acct.liveKey, { name: 'Cached job' });
    const up2 = await make(acct.liveKey, { name: 'Another job' });
    for (const key of [up.key, up.key, up2.key, up2.key]) expect((await b.request('GET', '/v2/imports', { key })).status).toBe(200);
    // B really answers from its cache: revoked behind the service's back, B still lets it in
    await t.db.query('update upload_keys set revoked_at = now() where id = $1', [up2.id]);
    // (while B does not trust its cache, a late heartbeat on a loaded machine, the database answers 401: ask until a trusted answer)
    await expect.poll(async () => (await b.request('GET', '/v2/imports', { key: up2.key })).status).toBe(200);
    await t.db.query('update upload_keys set revoked_at = null where id = $1', [up2.id]);

    expect((await t.request('DELETE', `/v2/account/upload-keys/${up.id}`, { key: acct.liveKey })).status).toBe(204);
    await expect.poll(async () => (await b.request('GET', '/v2/imports', { key: up.key })).status, { timeout: 1000, interval: 20 }).toBe(401);
    expect((await b.request('GET', '/v2/imports', { key: up2.key })).status).toBe(200);

    const off = await t.request('PATCH', `/admin/accounts/${acct.id}`, { headers: { authorization: `Bearer ${t.adminToken}` }, body: { disabled: true } });
    expect(off.status).toBe(200);
    await expect.poll(async () => (await b.request('GET', '/v2/imports', { key: up2.key })).status, { timeout: 1000, interval: 20 }).toBe(401);
  });
});
