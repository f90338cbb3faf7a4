// API keys are cached per node, yet a rotated key fails on every node: the rotation is announced
// over Redis pub/sub, promised within 1 s, which these tests hold to (test/ops/rate-limit-nodes.test.ts
// checks it with two processes). The announcement usually arrives before the next request, but
// not always on a loaded machine: Redis writes the rotation's reply and the subscriber's message
// one after the other, and may be descheduled in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { hashKey } from '../../src/domain/api-keys.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let a: TestApp; // node A
let b: TestApp; // node B: same database, same Redis prefix
let uncached: TestApp; // KEY_CACHE_MS=0

beforeAll(async () => {
  const prefix = `iitest${randomToken(8)}`;
  a = await startTestApp({ config: { redisPrefix: prefix, keyCacheMs: 60_000 } });
  b = await a.anotherNode({ config: { redisPrefix: prefix, keyCacheMs: 60_000 } });
  uncached = await a.anotherNode({ config: { redisPrefix: prefix, keyCacheMs: 0 } });
});
afterAll(async () => {
  await uncached?.close();
  await b?.close();
  await a?.close();
});

const status = async (node: TestApp, key: string) => (await node.request('GET', '/v2/customers', { key })).status;
/** asks until the node answers 200 and holds the key in its cache (a late heartbeat sends a lookup to the database) */
const cachedOn = (node: TestApp, key: string) =>
  expect.poll(async () => (await status(node, key)) === 200 && node.c.accounts.cachedScope(hashKey(key)) !== undefined).toBe(true);
/** asks until the key is refused: it must be within the promised second */
const refusedWithin1s = (node: TestApp, key: string) => expect.poll(() => status(node, key), { timeout: 1000, interval: 10 }).toBe(401);
const revokeBehindTheServicesBack = (t: TestApp, accountId: string) =>
  t.db.query(`update api_keys set revoked_at = now() where account_id = $1 and mode = 'live'`, [accountId]);

describe('key cache', () => {
  it('is really used: a key revoked in the database without a rotation still works from the cache', async () => {
    const acct = await a.createAccount();
    // B caches a key only while it trusts its cache (its heartbeat answered under 1 s ago); on a
    // loaded machine a late heartbeat sends a request to the database instead, so ask until it is cached
    await cachedOn(b, acct.liveKey);
    await revokeBehindTheServicesBack(a, acct.id);
    // served from B's cache: while B does not trust it the database answers 401, so ask until a trusted answer
    await expect.poll(() => status(b, acct.liveKey)).toBe(200);
    expect(await status(uncached, acct.liveKey)).toBe(401); // no cache: the database decides
    expect(await status(a, acct.liveKey)).toBe(401); // A never cached it
  });

  it('a rotation on node A fails the old key within 1 s on node B, which had it cached', async () => {
    const acct = await a.createAccount();
    expect(await status(a, acct.liveKey)).toBe(200);
    await cachedOn(b, acct.liveKey);
    const rotated = await a.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: { authorization: `Bearer ${a.adminToken}` } });
    expect(rotated.status).toBe(201);
    await refusedWithin1s(b, acct.liveKey);
    expect(await status(a, acct.liveKey)).toBe(401); // A rotated it: at once
    expect(await status(b, rotated.body.key)).toBe(200);
    expect(await status(b, acct.testKey)).toBe(200); // the other mode's key is untouched
    // rotating again fails the second key too, though B cached it just now
    const again = await b.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: { authorization: `Bearer ${b.adminToken}` } });
    expect(await status(b, rotated.body.key)).toBe(401); // B rotated it: at once
    await refusedWithin1s(a, rotated.body.key);
    expect(await status(a, again.body.key)).toBe(200);
  });

  it('a key served from the cache (the hook passes without a promise) opens only its own account and mode', async () => {
    const acct = await a.createAccount();
    const other = await a.createAccount();
    const created = await b.request('POST', '/v2/customers', { key: acct.liveKey, body: { customerCode: 'KC-1', name: 'Cached BV' } });
    expect(created.status).toBe(201);
    for (const key of [acct.liveKey, acct.testKey, other.liveKey]) expect(await status(b, key)).toBe(200); // each now cached on B
    const get = (key: string) => b.request('GET', `/v2/customers/${created.body.id}`, { key });
    expect((await get(acct.liveKey)).status).toBe(200);
    expect((await get(acct.testKey)).status).toBe(404); // the same account's other mode
    expect((await get(other.liveKey)).status).toBe(404); // another account
    const listed = await b.request('GET', '/v2/customers', { key: acct.testKey });
    expect(listed.body.customers).toEqual([]);
  });

  it('a disabled account fails within 1 s on a node that had its key cached, and works again when enabled', async () => {
    const acct = await a.createAccount();
    await cachedOn(b, acct.liveKey);
    const patch = (disabled: boolean) =>
      a.request('PATCH', `/admin/accounts/${acct.id}`, { headers: { authorization: `Bearer ${a.adminToken}` }, body: { disabled } });
    expect((await patch(true)).status).toBe(200);
    await refusedWithin1s(b, acct.liveKey);
    const refused = await b.request('GET', '/v2/customers', { key: acct.liveKey });
    expect(refused.body.detail).toMatch(/account is disabled/);
    expect((await patch(false)).status).toBe(200);
    expect(await status(b, acct.liveKey)).toBe(200);
  });

  it('with Redis unreachable the cache is not trusted, and a rotation is refused without changing anything', async () => {
    const down = await a.anotherNode({ config: { redisUrl: 'redis://127.0.0.1:1', keyCacheMs: 60_000 } });
    try {
      const acct = await down.createAccount();
      expect(await status(down, acct.liveKey)).toBe(200);
      const refused = await down.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: { authorization: `Bearer ${down.adminToken}` } });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toMatch(/key was not changed/);
      expect(await status(down, acct.liveKey)).toBe(200);
      await revokeBehindTheServicesBack(down, acct.id);
      expect(await status(down, acct.liveKey)).toBe(401); // straight from the database
    } finally {
      await down.close();
    }
  });

  it('with the cache off, rotations do not need Redis', async () => {
    const down = await a.anotherNode({ config: { redisUrl: 'redis://127.0.0.1:1', keyCacheMs: 0 } });
    try {
      const acct = await down.createAccount();
      const rotated = await down.request('POST', `/admin/accounts/${acct.id}/keys/live`, { headers: { authorization: `Bearer ${down.adminToken}` } });
      expect(rotated.status).toBe(201);
      expect(await status(down, acct.liveKey)).toBe(401);
      expect(await status(down, rotated.body.key)).toBe(200);
    } finally {
      await down.close();
    }
  });
});
