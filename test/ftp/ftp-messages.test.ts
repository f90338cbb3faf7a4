// What a person reads in their FTP client (Python's ftplib as a process): the 530 for plain FTP
// names the setting to choose; an empty password is refused without counting as a failed login;
// PROT P without PBSZ works; NLST with a pattern filters (and a pattern with a path is a
// permanent 550); a name that is not UTF-8 is refused with a reason that says so.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { run, section } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpApp } from './ftp-harness.ts';

const SCRIPT = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients', 'ftplib-messages.py');
let t: FtpApp;
let tmp: string;

beforeAll(async () => {
  t = await startFtpApp({ config: { transferLockoutAttempts: 1 } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-messages-'));
});
afterAll(async () => {
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('messages for people (ftplib)', () => {
  it('says what to choose, what it assumes and why it refuses', async () => {
    const acct = await t.ftpAccount();
    const invoice = await t.invoice(acct.liveKey);
    const local = path.join(tmp, 'invoice.pdf');
    fs.writeFileSync(local, await makePdf('messages'));
    const before = await t.counters();
    const r = await run('python3', [SCRIPT, String(t.port), acct.ftpUsername, acct.liveKey, local, `${invoice.invoiceNumber}.pdf`]);
    expect(r.code, r.stderr).toBe(0);
    const out = (name: string) => section(r.stdout, name).trim();

    expect(out('PLAIN')).toMatch(/^ERROR 530 TLS required: .*"FTP over TLS \(explicit\)", also called FTPES/);
    expect(out('PLAIN')).toContain('never sent unencrypted');
    // with a lockout of 1 attempt, a counted empty password would have locked the user out
    expect(out('EMPTY')).toMatch(/^ERROR 501 Must provide password/);
    const after = await t.counters();
    expect(after.loginsFailed - before.loginsFailed).toBe(0);
    expect(after.lockouts - before.lockouts).toBe(0);

    expect(out('PROT')).toMatch(/^200 /);
    expect(out('STOR')).toMatch(new RegExp(`^226 ${invoice.invoiceNumber}\\.pdf received as imp_`));
    expect(out('NLST').split('\n')).toEqual([`${invoice.invoiceNumber}.pdf`]);
    expect(out('NLST_ERROR')).toBe('');
    expect(out('NLST_NONE')).toBe('');
    expect(out('NLST_PATH')).toMatch(/^ERROR 550 The directory is flat: a pattern cannot have path parts/);
    expect(out('NLST_NAME')).toMatch(/^ERROR 550 No such file: nothing\.pdf/);
    expect(out('LATIN1')).toMatch(/^ERROR 553 The name is not valid UTF-8 .*set the client's file name encoding to UTF-8/);
    expect(out('UTF8')).toMatch(/^226 café-/);
    const names = (await t.imports(acct.liveKey)).map((i: any) => i.filename);
    expect(names).toContain(`café-${invoice.invoiceNumber}.pdf`);
    expect(names.some((n: string) => n.includes('\ufffd'))).toBe(false);
  });
});
