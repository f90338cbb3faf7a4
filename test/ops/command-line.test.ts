// src/main.ts's command line (node:util parseArgs): `--role` picks the roles; anything else is
// refused with exit code 2 and the usage, before the service touches a database or a port.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';

async function main(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
      timeout: 30_000,
    });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

describe('the command line', () => {
  it('refuses an unknown option with the usage, which names every role', async () => {
    const { code, stderr } = await main('--rol', 'api');
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown option '--rol'");
    expect(stderr).toContain('Usage: npm start -- [--role api|ftp|sftp|mail|smtp|worker ...]');
  });

  it('refuses a role that does not exist, as the ROLES setting would', async () => {
    const { code, stderr } = await main('--role', 'api', '--role', 'printer');
    expect(code).toBe(2);
    expect(stderr).toMatch(/ROLES must list roles among api, ftp, sftp, mail, smtp, worker, got "api,printer"/);
  });
});
