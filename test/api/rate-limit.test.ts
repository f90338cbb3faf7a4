// 429 per key, with Retry-After and the spec's error body, counted in Redis so that every node
// with the same prefix shares one budget.
import { describe, expect } from 'vitest';
import { hashKey } from '../../src/domain/api-keys.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { apiTest as it } from '../helpers/api-test.ts';
import type { TestApp } from '../helpers/test-app.ts';

const limit = { rateLimitMax: 3, rateLimitWindowMs: 60_000 };
const prefix = `iitest${randomToken(8)}`;
it.override('appOptions', { config: { ...limit, redisPrefix: prefix } });

const hit = (app: TestApp, key?: string) => app.request('GET', '/v2/customers', { key });

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('rate limit', () => {
  it('answers 429 with Retry-After and the error body once a key used its budget; other keys go on', async ({ t }) => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    for (let i = 0; i < 3; i++) expect((await hit(t, a.liveKey)).status).toBe(200);
    const limited = await hit(t, a.liveKey);
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^application\/(hal\+)?json/);
    expect(limited.body).toEqual({ status: 429, title: 'Too Many Requests', detail: expect.stringMatching(/retry after \d+ s/) });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // every method counts against the same budget
    expect((await t.request('POST', '/v2/customers', { key: a.liveKey, body: { customerCode: 'x', name: 'y' } })).status).toBe(429);
    // the test key of the same account, and another account, have their own budgets
    expect((await hit(t, a.testKey)).status).toBe(200);
    expect((await hit(t, b.liveKey)).status).toBe(200);
  });

  it('limits requests without a key by address', async ({ t }) => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await hit(t)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('is shared by two server instances with the same Redis prefix, and only by them', async ({ t }) => {
    const t2 = await t.anotherNode({ config: { ...limit, redisPrefix: prefix } });
    const t3 = await t.anotherNode({ config: { ...limit, redisPrefix: `iitest${randomToken(8)}` } });
    try {
      const acct = await t.createAccount();
      expect((await hit(t, acct.liveKey)).status).toBe(200);
      expect((await hit(t2, acct.liveKey)).status).toBe(200);
      expect((await hit(t, acct.liveKey)).status).toBe(200);
      expect((await hit(t2, acct.liveKey)).status).toBe(429);
      expect((await hit(t, acct.liveKey)).status).toBe(429);
      // a node with another prefix counts on its own
      expect((await hit(t3, acct.liveKey)).status).toBe(200);
    } finally {
      await t2.close();
      await t3.close();
    }
  });

  it("a key over its budget is refused from the node's memory until the window ends, without asking Redis", async ({ t }) => {
    const acct = await t.createAccount();
    for (let i = 0; i < 3; i++) expect((await hit(t, acct.liveKey)).status).toBe(200);
    expect((await hit(t, acct.liveKey)).status).toBe(429);
    // the count in Redis is gone: a node that asks Redis lets the key through, this one still refuses
    expect(await t.c.redis.del(`${prefix}:rl:k:${hashKey(acct.liveKey)}`)).toBe(1);
    const t2 = await t.anotherNode({ config: { ...limit, redisPrefix: prefix } });
    try {
      expect((await hit(t2, acct.liveKey)).status).toBe(200);
      expect((await hit(t, acct.liveKey)).status).toBe(429);
    } finally {
      await t2.close();
    }
  });

  it('the budget comes back after the window', async ({ t }) => {
    const short = await t.anotherNode({ config: { rateLimitMax: 1, rateLimitWindowMs: 1000 } });
    try {
      const acct = await short.createAccount();
      expect((await hit(short, acct.liveKey)).status).toBe(200);
      const limited = await hit(short, acct.liveKey);
      expect(limited.status).toBe(429);
      // the 1 s window ends: a request is let through again
      await expect.poll(async () => (await hit(short, acct.liveKey)).status, { timeout: 10_000, interval: 50 }).toBe(200);
    } finally {
      await short.close();
    }
  });

  it('with Redis unreachable, requests still go through, limited by the node alone (and /readyz says not ready)', async ({ t }) => {
    const down = await t.anotherNode({ config: { ...limit, redisUrl: 'redis://127.0.0.1:1' } });
    try {
      const acct = await down.createAccount();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await hit(down, acct.liveKey)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const ready = await down.request('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis).toMatch(/^failing/);
      expect(ready.body.checks.database).toBe('ok');
    } finally {
      await down.close();
    }
  });
});
