import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { parsePrometheusText, sampleValue } from './prom-text.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { pollFor } from '../../testkit/wait.ts';

// the health listener answers before the roles have started; each role is 'starting' until then
const readyStatus = (url: string) =>
  pollFor(
    () => fetch(`${url}/readyz`).then((r) => r.status),
    (s) => s === 200,
    { ms: 30_000, everyMs: 100 },
  );

const started: ServiceProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
function start(roles: string[], env: Record<string, string>) {
  const p = spawnService(roles, env);
  started.push(p);
  return p;
}
afterAll(async () => {
  for (const p of started) p.signal('SIGKILL');
  await Promise.all(started.map((p) => p.exited));
  for (const c of cleanups) await c();
});

const redisEnv = () => ({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `iitest${randomToken(8)}`, ADMIN_TOKEN: `adm_${randomToken(24)}` });

describe('roles in separate processes', () => {
  it('refuses a second process on one embedded PGlite database with a clear message, and frees it on exit', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ops-pglite-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { ...redisEnv(), DATA_DIR: dataDir };
    const first = start(['api'], env);
    await first.url();

    const second = start(['worker'], env);
    expect(await second.exited).toBe(1);
    const message = second.stderr.join('');
    expect(message).toContain(`in use by process ${first.proc.pid}`);
    expect(message).toContain('set DATABASE_URL to a PostgreSQL server');
    // the first process is untouched by the refused one
    expect((await fetch(`${await first.url()}/readyz`)).status).toBe(200);

    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);

    const third = start(['worker'], env);
    const url = await third.url();
    expect(await readyStatus(url)).toBe(200);
    third.signal('SIGINT');
    expect(await third.exited).toBe(0);
  }, 300_000); // three cold starts of the service with PGlite: slow on a loaded machine

  it('runs a worker-only process with health and metrics but no API', async () => {
    const db = await createPgDatabase();
    cleanups.push(db.drop);
    const p = start(['worker'], { ...redisEnv(), DATABASE_URL: db.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ops-')) });
    const url = await p.url();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await readyStatus(url);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).checks).toMatchObject({ database: 'ok', redis: 'ok', lifecycle: 'ok', worker: 'ok' });
    const metrics = parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
    expect(sampleValue(metrics.samples, 'invoice_intake_info', { roles: 'worker' })).toBe(1);
    expect((await fetch(`${url}/v2/customers`)).status).toBe(404);
    expect((await fetch(`${url}/admin/accounts`, { method: 'POST' })).status).toBe(404);
    p.signal('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.logs.some((l) => l.msg === 'stopped')).toBe(true);
  }, 240_000);
});
