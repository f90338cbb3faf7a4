// What a person starting the service reads: on a terminal, human-readable lines (pino-pretty) and
// a summary of where the API, the docs, the dashboard and each channel listen, where the admin
// token is and what to do next; elsewhere JSON lines carrying the same facts as fields. GET /
// links the docs and the dashboard. A key typed into the FTP user field (curl) is masked.
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { ROOT } from '../../testkit/paths.ts';
import { createPgDatabase } from '../../testkit/postgres.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

async function freshEnv(): Promise<Record<string, string>> {
  const pgdb = await createPgDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-start-up-'));
  cleanups.push(pgdb.drop, () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { DATABASE_URL: pgdb.url, DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: `iitest${randomToken(8)}` };
}

const ANSI = /\x1b\[[0-9;]*m/g;

describe('start-up', () => {
  it('on a terminal: readable lines, a summary a person can act on, and GET / leading to the docs and the dashboard', async () => {
    const env = await freshEnv();
    const roles = ['api', 'ftp', 'sftp', 'worker'].flatMap((r) => ['--role', r]).join(' ');
    // util-linux `script` runs the service on a pseudo-terminal, as a person's shell would
    const term = spawn('script', ['-qfec', `exec ${process.execPath} --import tsx src/main.ts ${roles}`, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TERM: 'xterm', HOST: '127.0.0.1', PORT: '0', FTP_PORT: '0', SFTP_PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => term.once('close', resolve)); // after its output is read
    cleanups.push(() => void (term.exitCode === null && term.kill('SIGKILL')));
    let out = '';
    term.stdout!.on('data', (c) => (out += c));
    await vi.waitFor(() => expect(out).toContain('Next:'), { timeout: 120_000, interval: 200 });
    const text = out.replace(ANSI, '').replace(/\r/g, '');
    expect(text).not.toContain('{"level"');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: starting invoice-intake$/m);
    const api = /^ {2}API +(http:\/\/127\.0\.0\.1:\d+)\/v2 +\(plain HTTP, this machine only\)$/m.exec(text)?.[1];
    expect(api).toBeTruthy();
    expect(text).toContain(`API docs     ${api}/docs`);
    expect(text).toContain(`Dashboard    ${api}/dashboard`);
    expect(text).toContain(`Admin token  ${path.join(env.DATA_DIR, 'admin-token')}`);
    expect(text).toMatch(/^ {2}FTP +0\.0\.0\.0:\d+ +\(FTPS with a self-signed certificate\)$/m); // FTP_HOST's default
    expect(text).toMatch(/^ {2}SFTP +0\.0\.0\.0:\d+$/m);
    expect(text).toMatch(/^ {2}Workers +matching imported files/m);
    expect(text).toContain('Next: create an account with `npm run admin -- create-account "Your company"`');

    const home = await fetch(`${api}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/^text\/html/);
    const links = [...(await home.text()).matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(['/dashboard', '/docs', '/v2/openapi.json']);
    for (const link of links) expect((await fetch(api + link)).status, link).toBeLessThan(400);

    // the service is script's child (exec'd by its shell): stopped, it says so on the terminal
    const service = Number(execFileSync('pgrep', ['-P', String(term.pid)], { encoding: 'utf8' }).trim());
    expect(fs.readFileSync(`/proc/${service}/cmdline`, 'utf8')).toContain('src/main.ts');
    process.kill(service, 'SIGTERM');
    await vi.waitFor(() => expect(out.replace(ANSI, '')).toMatch(/INFO: stopped/), { timeout: 30_000, interval: 100 });
    await exited;
  }, 180_000);

  it("elsewhere: JSON lines, the summary's facts as fields; a key typed as the FTP user name is masked", async () => {
    const adminToken = `adm_${randomToken(24)}`;
    const svc: ServiceProcess = spawnService(['api', 'ftp'], { ...(await freshEnv()), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'debug' });
    cleanups.push(async () => (svc.signal('SIGKILL'), await svc.exited));
    const base = await svc.url();
    const summary = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('invoice-intake is running'));
    expect(summary).toMatchObject({
      level: 30,
      startUp: {
        api: `${base}/v2`,
        docs: `${base}/docs`,
        dashboard: `${base}/dashboard`,
        adminToken: 'ADMIN_TOKEN, as set',
        ftp: expect.stringMatching(/^0\.0\.0\.0:\d+$/),
      },
    });
    expect(svc.logs.every((l) => typeof l.level === 'number' && typeof l.time === 'number')).toBe(true); // each line was JSON

    const account = (await (
      await fetch(`${base}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'typed' }),
      })
    ).json()) as { liveKey: string };
    // a person pastes the key into the user field (curl, FTPS as the server requires)
    const curl = await new Promise<number>((resolve) => {
      execFile(
        'curl',
        ['-sS', '--ssl-reqd', '-k', '--user', `${account.liveKey}:wrong`, `ftp://127.0.0.1:${summary.startUp.ftp.split(':')[1]}/`],
        { timeout: 30_000 },
        (err) => resolve(Number((err as { code?: number } | null)?.code ?? 0)),
      );
    });
    expect(curl).toBe(67); // curl: login denied
    const failed = await svc.waitForLog((l) => l.msg === 'ftp login failed');
    expect(failed.username).toBe('live_[redacted]');
    expect(JSON.stringify(svc.logs)).not.toContain(account.liveKey.slice(5, 25));
  }, 180_000);
});
