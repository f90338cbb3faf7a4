// Starts the real service (container + HTTP server) on a fresh database and a private Redis
// prefix, and gives tests the one HTTP client (testkit/http-client.ts) calling it in-process.
// Nothing is shared between test files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createContainer, type Container } from '../../src/app/container.ts';
import { coreReadiness } from '../../src/app/core-readiness.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { buildServer, type ServerOptions } from '../../src/http/server.ts';
import { httpClient, type HttpRequest } from '../../testkit/http-client.ts';
import { openTestDatabase } from './database.ts';
import { sameStore, testStoreConfig } from './test-store.ts';

export interface TestAccount {
  id: string;
  name: string;
  liveKey: string;
  testKey: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
}

export interface TestApp {
  app: FastifyInstance;
  c: Container;
  config: Config;
  db: Database;
  adminToken: string;
  /** the service in-process (Fastify's inject) */
  request: HttpRequest;
  createAccount(name?: string): Promise<TestAccount>;
  /** another node of the service on this one's database, as behind a load balancer; closing it leaves the database open */
  anotherNode(opts?: Omit<TestAppOptions, 'db'>): Promise<TestApp>;
  close(): Promise<void>;
}

/** `server` may be a function of the container, for plugins that need it (e.g. its metrics). */
export interface TestAppOptions {
  config?: Partial<Config>;
  server?: ServerOptions | ((c: Container) => ServerOptions);
  db?: Database;
}

export function testConfig(overrides: Partial<Config> = {}, env: Record<string, string> = {}): Config {
  return loadConfig(
    { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...env },
    {
      host: '127.0.0.1',
      port: 0,
      ftpPort: 0,
      sftpPort: 0,
      smtpListen: { host: '127.0.0.1', port: 0 },
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-test-')),
      redisPrefix: `iitest${randomToken(8)}`,
      adminToken: `adm_${randomToken(24)}`,
      ...testStoreConfig(),
      ...overrides,
    },
  );
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(opts.config);
  const db = opts.db ?? (await openTestDatabase());
  const c = await createContainer(config, createLogger(config.logLevel), { db });
  const server = typeof opts.server === 'function' ? opts.server(c) : opts.server;
  const readiness = new Map([...coreReadiness(c), ...(server?.readiness ?? [])]);
  const app = await buildServer(c, { adminToken: config.adminToken, ...server, readiness });
  await app.ready();
  const request = httpClient(app);
  return {
    app,
    c,
    config,
    db,
    adminToken: config.adminToken!,
    request,
    async createAccount(name = `acct-${randomToken(6)}`) {
      const res = await request('POST', '/admin/accounts', { key: config.adminToken, body: { name } });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as TestAccount;
    },
    anotherNode: (o = {}) => startTestApp({ ...o, config: { ...sameStore(config), ...o.config }, db: { ...db, close: async () => {} } }),
    async close() {
      await app.close();
      await c.close();
      await db.close();
    },
  };
}
