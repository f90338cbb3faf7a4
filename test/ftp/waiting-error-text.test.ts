// A file whose name matches no invoice gets its `<name>.error.txt` at once, saying what it waits
// for and until when, and the same file says why once the wait has ended (here after a short match
// window). Read by curl as a process, as the recipe does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { run } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpApp } from './ftp-harness.ts';

// long enough for the first reads on a busy machine, short enough to see the failure
const WINDOW_MS = 15_000;
let t: FtpApp;
let tmp: string;

beforeAll(async () => {
  t = await startFtpApp({ config: { intakeMatchWindowMs: WINDOW_MS, intakeBackoffMs: 500, intakeBackoffMaxMs: 1000 } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-waiting-'));
});
afterAll(async () => {
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a file that matches nothing', () => {
  it('has an .error.txt saying "waiting for invoice ... until ..." at once, and why it failed once the window ends', async () => {
    const acct = await t.ftpAccount();
    const local = path.join(tmp, 'F-NOT-YET.pdf');
    fs.writeFileSync(local, await makePdf('no invoice yet'));
    const curl = (...args: string[]) => run('curl', ['-sS', '--ssl-reqd', '-k', '--user', `${acct.ftpUsername}:${acct.liveKey}`, ...args]);
    const sent = Date.now();
    const up = await curl('-T', local, `ftp://127.0.0.1:${t.port}/F-NOT-YET.pdf`);
    expect(up.code, up.stderr).toBe(0);

    const read = async () => (await curl(`ftp://127.0.0.1:${t.port}/F-NOT-YET.pdf.error.txt`)).stdout;
    await expect
      .poll(read, { timeout: 10_000, interval: 200 })
      .toMatch(/Status: waiting\r\nReason: Waiting for an invoice with id or number F-NOT-YET until \d{4}-\d\d-\d\dT/);
    // "at once": well before the window ends
    expect(Date.now() - sent).toBeLessThan(WINDOW_MS);
    const text = await read();
    const until = Date.parse(/until (\S+)\r\n/.exec(text)![1]);
    expect(until).toBeGreaterThan(sent);
    expect(until).toBeLessThanOrEqual(Date.now() + WINDOW_MS);
    expect(text).toContain('It is attached as soon as that invoice exists');

    await expect.poll(read, { timeout: WINDOW_MS + 20_000, interval: 500 }).toMatch(/Status: failed\r\nReason: /);
    expect(await read()).toContain('Upload a corrected file under the same name to try again.');
  }, 90_000);
});
