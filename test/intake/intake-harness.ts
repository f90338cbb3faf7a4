// Test harness for the intake pipeline: the real service (startService) on a fresh database,
// over real HTTP, plus worker child processes for crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { queuePrefix } from '../../src/queue/job-definition.ts';
import { httpClient, type HttpRequest } from '../../testkit/http-client.ts';
import { ROOT } from '../../testkit/paths.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../../testkit/private-redis.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { waitForImport } from '../helpers/imports.ts';
import { testConfig } from '../helpers/test-app.ts';

export interface IntakeApp {
  svc: RunningService;
  config: Config;
  db: Database;
  /** the service over real HTTP */
  request: HttpRequest;
  account(): Promise<{ id: string; liveKey: string; testKey: string; live: Scope; test: Scope }>;
  /** polls the intake record until `done` says so (or the time is up) and returns it */
  waitFor(key: string, id: string, done?: (r: any) => boolean, ms?: number): Promise<any>;
  /** a fresh account whose live mode has these invoices (number -> total, or numbers at 100.00), and their ids */
  accountWith(invoices: string[] | Record<string, string>): Promise<{ key: string; invoices: Record<string, string> }>;
  /** POST /v2/imports of the file; its record once a worker decided (no longer `received`) */
  importFile(key: string, filename: string, bytes: Buffer): Promise<any>;
  close(): Promise<void>;
}

export async function startIntakeApp(
  opts: { config?: Partial<Config>; db?: Database /** where the log lines go (stdout when unset) */; logTo?: NodeJS.WritableStream } = {},
): Promise<IntakeApp> {
  const config = testConfig({ roles: ['api', 'worker'], ...opts.config });
  const db = opts.db ?? (await openTestDatabase());
  const svc = await startService(config, createLogger(config.logLevel, opts.logTo), { db });
  const request = httpClient(svc.apiUrl!);
  const app: IntakeApp = {
    svc,
    config,
    db,
    request,
    async account() {
      const a = await svc.container.accounts.create(`intake-${randomToken(6)}`);
      return { id: a.id, liveKey: a.liveKey, testKey: a.testKey, live: { accountId: a.id, mode: 'live' }, test: { accountId: a.id, mode: 'test' } };
    },
    waitFor: (key, id, done, ms = 45_000) => waitForImport(request, key, id, done, ms),
    async accountWith(wanted) {
      const key = (await app.account()).liveKey;
      const totals = Array.isArray(wanted) ? Object.fromEntries(wanted.map((n) => [n, '100.00'])) : wanted;
      const customer = await request('POST', '/v2/customers', { key, body: { customerCode: 'C-1', name: 'Intake GmbH' } });
      const invoices: Record<string, string> = {};
      for (const [invoiceNumber, invoiceTotal] of Object.entries(totals)) {
        const res = await request('POST', '/v2/invoices', {
          key,
          body: { customer: customer.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal },
        });
        if (res.status !== 201) throw new Error(`invoice ${invoiceNumber}: ${res.status} ${JSON.stringify(res.body)}`);
        invoices[invoiceNumber] = res.body.id;
      }
      return { key, invoices };
    },
    async importFile(key, filename, bytes) {
      const res = await request('POST', '/v2/imports', { key, body: { Filename: filename, Content: bytes.toString('base64') } });
      if (res.status !== 202) throw new Error(`import ${filename}: ${res.status} ${JSON.stringify(res.body)}`);
      return waitForImport(request, key, res.body.id, (r) => r.status !== 'received', 45_000);
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

/** `node --import tsx src/main.ts --role worker` (or another role), as `npm start` runs it, with this environment. */
function spawnWorker(env: Record<string, string>, role = 'worker'): ChildProcess & { output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

export interface CrashRig {
  svc: RunningService;
  config: Config;
  /** the environment child processes need to share this rig's database, Redis and prefix */
  env(): Record<string, string>;
  /** starts `src/main.ts --role <role>` as a child; it is killed after the file's tests */
  spawn(env: Record<string, string>, role?: string): ReturnType<typeof spawnWorker>;
}

/**
 * For a test file that kills processes: a private redis-server, a fresh PostgreSQL database, this
 * process as the api role only (the workers and channels are the child processes), all removed
 * after the file's tests.
 */
export function crashRig(): CrashRig {
  let redis: PrivateRedis;
  let pgdb: Awaited<ReturnType<typeof createPgDatabase>>;
  const children: ReturnType<typeof spawnWorker>[] = [];
  // svc and config are set before the first test
  const rig = {} as CrashRig;
  rig.env = () => ({ DATABASE_URL: pgdb.url, REDIS_URL: redis.url, REDIS_PREFIX: rig.config.redisPrefix, DATA_DIR: rig.config.dataDir });
  rig.spawn = (env, role) => {
    const child = spawnWorker(env, role);
    children.push(child);
    return child;
  };
  beforeAll(async () => {
    redis = await startPrivateRedis();
    pgdb = await createPgDatabase();
    rig.config = testConfig({ roles: ['api'], redisUrl: redis.url, databaseUrl: pgdb.url });
    rig.svc = await startService(rig.config, createLogger(rig.config.logLevel));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await rig.svc?.stop();
    await pgdb?.drop();
    await redis?.stop();
  });
  return rig;
}
