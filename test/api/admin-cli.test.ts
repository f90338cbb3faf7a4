// `npm run admin -- ...` against a real listening service, as an operator would use it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/test-app.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let service: RunningService;
let config: Config;
let db: Database;
let url: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as its own process with only the environment given (plus PATH). */
function cli(args: string[], env: Record<string, string> = {}, viaNpm = false): Promise<Run> {
  const [cmd, argv] = viaNpm ? ['npm', ['run', '--silent', 'admin', '--', ...args]] : [process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args]];
  return new Promise((resolve) => {
    execFile(
      cmd,
      argv as string[],
      { cwd: root, env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as any).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

const keysIn = (text: string) => ({
  live: /Live API key:\s+(live_\w+)/.exec(text)?.[1],
  test: /Test API key:\s+(test_\w+)/.exec(text)?.[1],
});
const apiStatus = async (key: string) => (await fetch(`${url}/v2/customers`, { headers: { authorization: `Bearer ${key}` } })).status;

beforeAll(async () => {
  // no ADMIN_TOKEN: the service writes one into DATA_DIR/admin-token, where the CLI finds it
  config = testConfig({ roles: ['api'], adminToken: undefined });
  db = await openTestDatabase();
  service = await startService(config, createLogger('silent'), { db });
  url = service.apiUrl!.replace('0.0.0.0', '127.0.0.1');
});
afterAll(async () => {
  await service?.stop();
  await db?.close();
});

describe('admin CLI', () => {
  it('create-account prints a live and a test key once, clearly, with the FTP user name and import addresses', async () => {
    const run = await cli(['create-account', 'Acme BV'], { ADMIN_URL: url, DATA_DIR: config.dataDir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const keys = keysIn(run.stdout);
    expect(keys.live).toMatch(/^live_[0-9A-Za-z]{40}$/);
    expect(keys.test).toMatch(/^test_[0-9A-Za-z]{40}$/);
    expect(run.stdout).toMatch(/Account "Acme BV" created/);
    expect(run.stdout).toMatch(/FTP user name:\s+ii\w+/);
    expect(run.stdout).toMatch(/Import address live:\s+\S+\+\w+@/);
    expect(run.stdout).toMatch(/Import address test:\s+\S+\+\w+@/);
    expect(run.stdout).toMatch(/shown only now/);
    // the keys work at once, each in its mode
    expect(await apiStatus(keys.live!)).toBe(200);
    expect(await apiStatus(keys.test!)).toBe(200);
    const id = /Account id:\s+(acc_\w+)/.exec(run.stdout)![1];
    const shown = await cli(['show-account', id], { ADMIN_URL: url, DATA_DIR: config.dataDir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(id);
    expect(shown.stdout).toContain('Acme BV');
    expect(shown.stdout).not.toContain(keys.live!);
    expect(shown.stdout).not.toMatch(/live_\w{40}|test_\w{40}/);
  });

  it('rotate-key prints the new key; the old one fails at once', async () => {
    const created = JSON.parse((await cli(['create-account', 'Rotating', '--json'], { ADMIN_URL: url, DATA_DIR: config.dataDir })).stdout);
    expect(await apiStatus(created.liveKey)).toBe(200);
    const run = await cli(['rotate-key', created.id, 'live'], { ADMIN_URL: url, DATA_DIR: config.dataDir });
    expect(run.code).toBe(0);
    const key = /^\s+(live_\w{40})$/m.exec(run.stdout)?.[1];
    expect(key).toBeDefined();
    expect(run.stdout).toMatch(/old live key stopped working/);
    expect(await apiStatus(created.liveKey)).toBe(401);
    expect(await apiStatus(key!)).toBe(200);
    expect(await apiStatus(created.testKey)).toBe(200);
    // the rotation is in the account's trail, by the operator
    const trail = await cli(['trail', created.id], { ADMIN_URL: url, DATA_DIR: config.dataDir });
    expect(trail.code).toBe(0);
    expect(trail.stdout).toMatch(/^AT\s+MODE\s+ACTION\s+TARGET\s+BY\s+FROM/m);
    expect(trail.stdout).toMatch(/ live\s+api_key\.rotated\s+live\s+operator:operator\s+127\.0\.0\.1/);
    expect(trail.stdout).not.toContain(key!);
  });

  it('works through npm run admin with ADMIN_TOKEN and PORT only', async () => {
    const token = fs.readFileSync(path.join(config.dataDir, 'admin-token'), 'utf8').trim();
    const port = new URL(url).port;
    const run = await cli(['create-account', 'Via npm'], { ADMIN_TOKEN: token, PORT: port, DATA_DIR: '/nonexistent' }, true);
    expect(run.code).toBe(0);
    expect(keysIn(run.stdout).live).toMatch(/^live_/);
  });

  it('says clearly what is wrong', async () => {
    // independent processes: run them side by side
    const [wrongToken, missing, noToken, down, badMode, unknown, badEnv] = await Promise.all([
      cli(['show-account', 'acc_x'], { ADMIN_URL: url, ADMIN_TOKEN: 'adm_wrong' }),
      cli(['show-account', 'acc_missing'], { ADMIN_URL: url, DATA_DIR: config.dataDir }),
      cli(['show-account', 'acc_x'], { ADMIN_URL: url, DATA_DIR: '/nonexistent' }),
      cli(['show-account', 'acc_x'], { ADMIN_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: 'x' }),
      cli(['rotate-key', 'acc_x', 'prod'], { ADMIN_URL: url, DATA_DIR: config.dataDir }),
      cli(['frobnicate'], { ADMIN_URL: url, DATA_DIR: config.dataDir }),
      cli(['show-account', 'x'], { ADMIN_URL: 'ftp://x', ADMIN_TOKEN: 'x' }),
    ]);
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/Error 401: .*admin token was refused/s);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Error 404: No account exists with id acc_missing.');
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/No admin token: set ADMIN_TOKEN/);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/Cannot reach the admin API at http:\/\/127\.0\.0\.1:1.*Is the service running/s);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/live or test/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command "frobnicate".*Usage:/s);
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('ADMIN_URL must use http or https');
  });
});
