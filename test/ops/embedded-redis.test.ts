// Redis on a fresh machine (src/app/private-redis.ts): REDIS_URL unset and nothing on the default
// address (here REDIS_DEFAULT_URL points at a free port: the shared Redis on 6379 stays untouched).
// With redis-server on the PATH the service runs a private one in DATA_DIR and stops it with
// itself; without it, one message and exit status 2. The service runs as a real process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { privateRedisIfNeeded } from '../../src/app/private-redis.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { freePort } from '../../testkit/ports.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

async function freshEnv(): Promise<Record<string, string>> {
  const pgdb = await createPgDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-redis-'));
  cleanups.push(pgdb.drop, () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { DATABASE_URL: pgdb.url, DATA_DIR: dataDir, REDIS_DEFAULT_URL: `redis://127.0.0.1:${await freePort()}` };
}

const reap = (pid: number) => cleanups.push(() => void (alive(pid) && process.kill(pid, 'SIGTERM')));

function start(env: Record<string, string>): ServiceProcess {
  const svc = spawnService(['api', 'worker'], env);
  cleanups.push(async () => (svc.signal('SIGKILL'), await svc.exited));
  return svc;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function onSocket<T>(socket: string, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ path: socket, maxRetriesPerRequest: 1 });
  try {
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

describe('Redis on a fresh machine', () => {
  it('no redis-server on the PATH: one message saying what to do, exit status 2, no stream of refused connections', async () => {
    const emptyPath = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-no-redis-path-'));
    cleanups.push(() => fs.rmSync(emptyPath, { recursive: true, force: true }));
    const svc = start({ ...(await freshEnv()), PATH: emptyPath });
    expect(await svc.exited).toBe(2);
    const stderr = svc.stderr.join('');
    expect(stderr).toContain('redis-server (to start a private one) is not on the PATH');
    expect(stderr).toContain('apt-get install redis-server');
    expect(stderr).toContain('set REDIS_URL to a Redis server');
    expect(JSON.stringify(svc.logs)).not.toMatch(/ECONNREFUSED|redis connection error/);
    expect(svc.logs.length).toBeLessThan(5);
  }, 120_000);

  it('redis-server on the PATH: a private one in DATA_DIR (AOF, noeviction), stopped with the service, its data kept across restarts', async () => {
    const env = await freshEnv();
    const socket = path.join(env.DATA_DIR, 'redis', 'redis.sock');
    let svc = start(env);
    const summary = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('invoice-intake is running'), 180_000);
    expect(summary.startUp.redis).toBe(`private redis-server on ${socket}`);
    expect(summary.msg).toContain(`Redis        private redis-server on ${socket}   (started and stopped with the service`);
    const pid = (await svc.waitForLog((l) => l.msg?.startsWith('started a private Redis'))).pid as number;
    reap(pid);
    expect((await fetch(`${await svc.url()}/readyz`)).status).toBe(200);
    const settings = await onSocket(socket, async (r) => {
      await r.set('embedded-test-key', 'kept');
      return [await r.config('GET', 'appendonly'), await r.config('GET', 'maxmemory-policy'), await r.config('GET', 'dir')].flat();
    });
    expect(settings).toEqual(['appendonly', 'yes', 'maxmemory-policy', 'noeviction', 'dir', path.join(env.DATA_DIR, 'redis')]);

    const stopAt = Date.now();
    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(0);
    const stopMs = Date.now() - stopAt;
    expect(stopMs).toBeLessThan(10_000); // about a second on a quiet machine (README, timings)
    expect(alive(pid)).toBe(false);

    // killed outright, the service leaves its Redis running: the next start shuts that one down (it
    // writes its AOF) and starts its own on the same data
    svc = start(env);
    const second = (await svc.waitForLog((l) => l.msg?.startsWith('started a private Redis'), 180_000)).pid as number;
    reap(second);
    await svc.url();
    svc.signal('SIGKILL');
    await svc.exited;
    expect(alive(second)).toBe(true);
    svc = start(env);
    await svc.waitForLog((l) => l.msg === 'stopped the private Redis an earlier run left behind', 180_000);
    const third = (await svc.waitForLog((l) => l.msg?.startsWith('started a private Redis'))).pid as number;
    reap(third);
    await svc.url();
    expect(third).not.toBe(second);
    expect(await onSocket(socket, (r) => r.get('embedded-test-key'))).toBe('kept');
    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(alive(third)).toBe(false);
  }, 360_000);

  it('a second start on the same DATA_DIR leaves the running service its private Redis and says why it cannot start', async () => {
    const env = await freshEnv();
    const first = start(env);
    const pid = (await first.waitForLog((l) => l.msg?.startsWith('started a private Redis'), 180_000)).pid as number;
    reap(pid);
    const url = await first.url();
    const second = start(env);
    expect(await second.exited).toBe(1);
    expect(second.stderr.join('')).toContain(`Another invoice-intake (pid ${first.proc.pid}) runs on DATA_DIR`);
    expect(alive(pid)).toBe(true);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(alive(pid)).toBe(false);
  }, 360_000);

  it('REDIS_URL pointing at nothing: the service starts, warns once a period instead of a stream, and stops in about a second', async () => {
    const env = { ...(await freshEnv()), REDIS_URL: `redis://127.0.0.1:${await freePort()}` };
    const svc = start(env);
    await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('invoice-intake is running'), 180_000);
    // every connection retries several times a second; let a few hundred attempts pass
    await svc.waitForLog((l) => l.msg === 'worker redis connection error');
    const started = Date.now();
    await expect.poll(() => Date.now() - started, { timeout: 10_000, interval: 500 }).toBeGreaterThan(5000);
    const warnings = svc.logs.filter((l) => /redis|worker error/i.test(String(l.msg)) && l.level === 40);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan(12); // one per source and cause in a 30 s period
    const stopAt = Date.now();
    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(5000); // about a second on a quiet machine, not the 25 s grace
    expect(svc.logs.some((l) => l.msg === 'Redis is not reachable: workers and queues stop without waiting')).toBe(true);
  }, 240_000);

  it('no private Redis when REDIS_URL is set or a Redis answers on the default address', async () => {
    const log = createLogger('silent');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-redis-default-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const unused = `redis://127.0.0.1:${await freePort()}`;
    expect(await privateRedisIfNeeded(loadConfig({ DATA_DIR: dataDir, REDIS_DEFAULT_URL: 'redis://127.0.0.1:6379' }), log)).toBeUndefined();
    expect(await privateRedisIfNeeded(loadConfig({ DATA_DIR: dataDir, REDIS_URL: unused, REDIS_DEFAULT_URL: unused }), log)).toBeUndefined();
    expect(fs.existsSync(path.join(dataDir, 'redis'))).toBe(false);
  });
});
