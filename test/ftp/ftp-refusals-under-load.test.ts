// A refusal after PASV/EPSV must reach the client whatever the timing: with both cores saturated
// by other processes, basic-ftp (data connection and TLS handshake at once) sends STORs the server
// refuses (553, a name with a path part) and must read each 553, its session still usable. The
// burners are processes of their own, ended after the test (and bounded to 120 s by themselves).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { run } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpApp } from './ftp-harness.ts';

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients', 'basic-ftp-refusals.mjs');
const REFUSALS = 40;
let t: FtpApp;
let tmp: string;
const burners: ChildProcess[] = [];

beforeAll(async () => {
  t = await startFtpApp();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-load-'));
});
afterAll(async () => {
  for (const b of burners) if (b.exitCode === null) b.kill('SIGKILL');
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A process that keeps one core busy for at most `seconds`. */
function burnCpu(seconds: number): ChildProcess {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${seconds * 1000}; while (Date.now() < end);`], { stdio: 'ignore' });
  burners.push(child);
  return child;
}

describe('refusals under load', () => {
  it(`basic-ftp reads ${REFUSALS} refusals (553) after EPSV while both cores are saturated`, async () => {
    const acct = await t.ftpAccount();
    const local = path.join(tmp, 'x.pdf');
    fs.writeFileSync(local, await makePdf('refused'));
    const running = [burnCpu(120), burnCpu(120), burnCpu(120)];
    try {
      const r = await run(process.execPath, [SCRIPT, String(t.port), acct.ftpUsername, acct.liveKey, local, String(REFUSALS)], { timeoutMs: 110_000 });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(
        lines.filter((l) => !/^553 553 The directory is flat/.test(l) && !l.startsWith('== ')),
        r.stdout,
      ).toEqual([]);
      expect(lines.filter((l) => l.startsWith('553'))).toHaveLength(REFUSALS);
      expect(lines.at(-1)).toBe('== NOOP 200');
    } finally {
      for (const b of running) b.kill('SIGKILL');
    }
  }, 120_000);
});
