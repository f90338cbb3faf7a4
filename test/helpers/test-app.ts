// Starts the real service (container + HTTP server) on a fresh database and a private Redis
// prefix, and gives tests a small client. Nothing is shared between test files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { coreReadiness, createContainer, type Container } from '../../src/app/container.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { buildServer, type ServerOptions } from '../../src/http/server.ts';
import { openTestDatabase } from './database.ts';

export interface TestAccount {
  id: string;
  name: string;
  liveKey: string;
  testKey: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  raw: Buffer;
}

export interface TestApp {
  app: FastifyInstance;
  c: Container;
  config: Config;
  db: Database;
  adminToken: string;
  request(method: string, url: string, opts?: { key?: string; body?: unknown; form?: Record<string, string>; headers?: Record<string, string> }): Promise<Reply>;
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
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-test-')),
      redisPrefix: `iitest${randomToken(8)}`,
      adminToken: `adm_${randomToken(24)}`,
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
  const request: TestApp['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let payload: string | undefined;
    if (o.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(o.form).toString();
    } else if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    }
    const res = await app.inject({ method: method as any, url, headers, payload });
    let body: any = res.body;
    if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers as Reply['headers'], body, raw: res.rawPayload };
  };
  return {
    app, c, config, db, adminToken: config.adminToken!, request,
    async createAccount(name = `acct-${randomToken(6)}`) {
      const res = await request('POST', '/admin/accounts', { headers: { authorization: `Bearer ${config.adminToken}` }, body: { name } });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as TestAccount;
    },
    anotherNode: (o = {}) => startTestApp({ ...o, db: { ...db, close: async () => {} } }),
    async close() {
      await app.close();
      await c.close();
      await db.close();
    },
  };
}
