// The rate limit and the announcements across two API processes (`node --import tsx src/main.ts --role api`, each
// with its key cache on) sharing one private Redis and one fresh PostgreSQL database: a rotated
// key fails on the other node within 1 s; the per-key limit holds across both nodes within 10 %;
// with Redis stopped mid-test, keys are still checked (a revoked key stays revoked) and each node
// limits on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';

const LIMIT = 1000; // each node takes it from Redis in slices of 10
let redis: PrivateRedis;
let db: { url: string; drop: () => Promise<void> };
let nodes: ServiceProcess[] = [];
let urls: string[] = [];
const adminToken = `adm_${randomToken(24)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-gate-nodes-'));

beforeAll(async () => {
  [redis, db] = await Promise.all([startPrivateRedis(), createPgDatabase()]);
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: dataDir,
    KEY_CACHE_MS: '30000',
    RATE_LIMIT_MAX: String(LIMIT),
    RATE_LIMIT_WINDOW_MS: '60000',
  };
  nodes = [spawnService(['api'], env), spawnService(['api'], env)];
  urls = await Promise.all(nodes.map((n) => n.url()));
}, 200_000);

afterAll(async () => {
  for (const n of nodes) n.signal('SIGKILL');
  await Promise.all(nodes.map((n) => n.exited));
  await redis?.stop();
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const status = async (node: number, key: string, p = '/v2/customers') => (await httpClient(urls[node])('GET', p, { key })).status;

const admin = (node: number, method: string, p: string, body?: unknown) => httpClient(urls[node])(method, p, { key: adminToken, body });

async function account(): Promise<{ id: string; liveKey: string; testKey: string }> {
  const created = await admin(0, 'POST', '/admin/accounts', { name: `gate ${randomToken(4)}` });
  expect(created.status).toBe(201);
  return created.body;
}

/** Milliseconds until `check` holds, polling every 10 ms; fails past `ms`. */
async function timeUntil(check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = performance.now();
  while (!(await check())) {
    if (performance.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - t0;
}

describe('rate limit and announcements across two API processes', () => {
  it('a key rotated on node 0 fails on node 1, which had it cached, within 1 s; the new key works there', async () => {
    for (let round = 0; round < 3; round++) {
      const acct = await account();
      for (let i = 0; i < 3; i++) expect(await status(1, acct.liveKey)).toBe(200); // cached on node 1
      const rotated = await admin(0, 'POST', `/admin/accounts/${acct.id}/keys/live`);
      expect(rotated.status).toBe(201);
      const ms = await timeUntil(async () => (await status(1, acct.liveKey)) === 401, 1000);
      expect(ms).toBeLessThan(1000);
      expect(await status(1, rotated.body.key)).toBe(200);
      expect(await status(1, acct.testKey)).toBe(200);
    }
  });

  it(`holds the per-key limit (${LIMIT} a minute) across both nodes within 10 %`, async () => {
    const acct = await account();
    const statuses: number[] = [];
    // 1.5x the budget, 8 at a time, alternating between the nodes
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 1.5 * LIMIT) statuses.push(await status(next++ % 2, acct.liveKey));
      }),
    );
    const ok = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(ok).toBeLessThanOrEqual(LIMIT); // slices never outlive their window: never over
    expect(ok).toBeGreaterThanOrEqual(LIMIT * 0.9);
  });

  it('with Redis stopped mid-test, keys are still checked against the database (a revoked key stays revoked) and each node limits on its own', async () => {
    const kept = await account();
    const revoked = await account();
    for (const node of [0, 1]) for (const key of [kept.liveKey, kept.testKey, revoked.liveKey]) expect(await status(node, key)).toBe(200); // cached on both nodes
    const rotated = await admin(0, 'POST', `/admin/accounts/${revoked.id}/keys/live`);
    expect(rotated.status).toBe(201);
    await redis.stop();
    // revoked behind the service's back: only a node that asks the database sees it
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    await sql.query(`update api_keys set revoked_at = now() where account_id = $1 and mode = 'test'`, [kept.id]);
    await sql.end();
    for (const node of [0, 1]) {
      // the subscription's PING goes unanswered: within about a second the node stops trusting its cache
      expect(await timeUntil(async () => (await status(node, kept.testKey)) === 401, 1500)).toBeLessThan(1500);
      for (let i = 0; i < 5; i++) {
        expect(await status(node, kept.liveKey)).toBe(200);
        expect(await status(node, revoked.liveKey)).toBe(401);
        expect(await status(node, kept.testKey)).toBe(401);
      }
      expect(await status(node, rotated.body.key)).toBe(200);
    }
    // without Redis a rotation is refused rather than leave a node trusting the old key
    const refused = await admin(1, 'POST', `/admin/accounts/${kept.id}/keys/live`);
    expect(refused.status).toBe(503);
    expect(await status(1, kept.liveKey)).toBe(200);
    // the limit falls back to each node: a fresh key gets LIMIT on node 0 and again on node 1
    const fresh = await account();
    for (const node of [0, 1]) {
      const got: number[] = [];
      for (let i = 0; i < LIMIT + 2; i++) got.push(await status(node, fresh.liveKey));
      expect(got.filter((s) => s === 200).length).toBe(LIMIT);
      expect(got.slice(-2)).toEqual([429, 429]);
    }
  }, 120_000);
});
