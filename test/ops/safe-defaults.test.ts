// Defaults an operator gets without reading anything: plain HTTP stays on this machine unless
// HOST opens it (then a warning), and the data directory is private to the service's user.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { testConfig } from '../helpers/test-app.ts';
import { ROOT } from '../../testkit/paths.ts';

const lines: Record<string, any>[] = [];
let svc: RunningService | undefined;
afterAll(() => svc?.stop());

describe('safe defaults', () => {
  it('HOST: 127.0.0.1 without TLS_CERT, 0.0.0.0 with it, and what HOST says when set', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ TLS_CERT: '/c.pem', TLS_KEY: '/k.pem', PUBLIC_URL: 'https://i.example' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://i.example' }).host).toBe('0.0.0.0');
  });

  it('a fresh DATA_DIR and its database are 0700, the admin token 0600; HOST=0.0.0.0 without TLS warns', async () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ii-modes-')), 'data');
    const log = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) });
    svc = await startService(testConfig({ roles: ['api'], dataDir, host: '0.0.0.0', adminToken: undefined, publicUrl: 'https://i.example' }), log);
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, 'pglite'))).toBe(0o700);
    expect(mode(path.join(dataDir, 'admin-token'))).toBe(0o600);
    const warning = lines.find((l) => l.level === 40 && /plain HTTP/.test(l.msg));
    expect(warning?.msg).toMatch(/HOST=0\.0\.0\.0 .*TLS-terminating proxy/);
  });

  it('the API beyond loopback without PUBLIC_URL does not start: the process says to set it and exits 2', async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const p = execFile(
        process.execPath,
        ['--import', 'tsx', 'src/main.ts'],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOST: '0.0.0.0', PORT: '0', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-no-url-')) } },
        (_err, _out, stderr) => resolve({ code: p.exitCode, stderr }),
      );
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Invalid configuration:\n {2}- PUBLIC_URL must be set when the API listens beyond this machine \(HOST=0\.0\.0\.0\)/);
  });

  it('the mail role warns while IMPORT_ADDRESS is still the example.com address', async () => {
    const out: Record<string, any>[] = [];
    const log = createLogger('info', { write: (l: string) => void out.push(JSON.parse(l)) });
    const mail = await startService(testConfig({ roles: ['mail'], imapUrl: 'imap://importer:secret@127.0.0.1:1/INBOX' }), log);
    await mail.stop();
    expect(out.find((l) => l.level === 40 && /IMPORT_ADDRESS is still the example/.test(l.msg))).toBeTruthy();
  });
});
