import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { pollFor } from '../../testkit/wait.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

// A private redis-server: stopping the shared one on 6379 would break every other suite.
let redis: PrivateRedis;
let t: TestApp;

beforeAll(async () => {
  redis = await startPrivateRedis();
  t = await startTestApp({ config: { redisUrl: redis.url } });
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

async function readyz() {
  const res = await t.request('GET', '/readyz');
  return { status: res.status, checks: res.body.checks as Record<string, string> };
}

describe('/readyz and Redis', () => {
  it('is ready while the database and Redis answer', async () => {
    expect(await readyz()).toEqual({ status: 200, checks: { database: 'ok', redis: 'ok' } });
    expect((await t.request('GET', '/healthz')).status).toBe(200);
  });

  it('fails while Redis is stopped (the process stays alive), and recovers when it is back', async () => {
    await redis.stop();
    const down = await pollFor(readyz, (r) => r.status !== 200, { ms: 30_000, everyMs: 200 });
    expect(down.status).toBe(503);
    expect(down.checks.redis).toMatch(/^failing: /);
    expect(down.checks.database).toBe('ok');
    expect((await t.request('GET', '/healthz')).status).toBe(200);

    await redis.start();
    const up = await pollFor(readyz, (r) => r.status === 200, { ms: 30_000, everyMs: 200 });
    expect(up.status).toBe(200);
    expect(up.checks).toEqual({ database: 'ok', redis: 'ok' });
  });
});
