// Test harness for the intake pipeline: the real service (startService) on a fresh database,
// over real HTTP, plus a private redis-server and worker child processes for crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createLogger } from '../../src/app/logger.ts';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { queuePrefix } from '../../src/intake/queue/intake-queue.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/test-app.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Http {
  status: number;
  body: any;
  raw: Buffer;
}

export interface IntakeApp {
  svc: RunningService;
  config: Config;
  db: Database;
  request(method: string, url: string, opts?: { key?: string; body?: unknown; headers?: Record<string, string> }): Promise<Http>;
  account(): Promise<{ id: string; liveKey: string; testKey: string; live: Scope; test: Scope }>;
  /** polls the intake record until `done` says so (or the time is up) and returns it */
  waitFor(key: string, id: string, done?: (r: any) => boolean, ms?: number): Promise<any>;
  close(): Promise<void>;
}

export async function startIntakeApp(opts: { config?: Partial<Config>; db?: Database } = {}): Promise<IntakeApp> {
  const config = testConfig({ roles: ['api', 'worker'], ...opts.config });
  const db = opts.db ?? (await openTestDatabase());
  const svc = await startService(config, createLogger(config.logLevel), { db });
  const request: IntakeApp['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${svc.apiUrl}${url}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const raw = Buffer.from(await res.arrayBuffer());
    const text = raw.toString('utf8');
    return { status: res.status, body: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : text, raw };
  };
  const app: IntakeApp = {
    svc, config, db, request,
    async account() {
      const a = await svc.container.accounts.create(`intake-${randomToken(6)}`);
      return { id: a.id, liveKey: a.liveKey, testKey: a.testKey, live: { accountId: a.id, mode: 'live' }, test: { accountId: a.id, mode: 'test' } };
    },
    async waitFor(key, id, done = (r) => r.status === 'attached' || r.status === 'failed', ms = 45_000) {
      const end = Date.now() + ms;
      for (;;) {
        const res = await request('GET', `/v2/imports/${id}`, { key });
        if (res.status === 200 && done(res.body)) return res.body;
        if (Date.now() > end) return res.body;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      await svc.stop();
      await dropQueueKeys(config);
      if (!opts.db) await db.close();
    },
  };
  return app;
}

/** Removes this test's queue keys from the (shared) Redis. */
export async function dropQueueKeys(config: Config): Promise<void> {
  const r = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${queuePrefix(config)}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A private redis-server on a free port: crash and FLUSHDB tests never touch the shared one. */
export async function startPrivateRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-redis-'));
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const reap = () => proc.kill('SIGKILL'); // never outlive the test process
  process.once('exit', reap);
  proc.once('exit', () => process.removeListener('exit', reap));
  const end = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (e) {
      if (Date.now() > end) {
        proc.kill('SIGKILL');
        throw new Error(`private redis-server did not start on ${port}: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** `node --import tsx src/main.ts --role worker`, as `npm start` runs it, with this environment. */
export function spawnWorker(env: Record<string, string>): ChildProcess & { output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', 'worker'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

export async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
