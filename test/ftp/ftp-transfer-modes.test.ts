// ASCII mode, RFC 959's default and Commons Net's: the client converts the file's line ends before
// sending, so a PDF arrives damaged. The server refuses STOR of a PDF or ZIP until the client says
// TYPE I, with words that say so, before a byte is sent (docs/ftp.md, Transfer type). Commons Net
// as an integrator first writes it: no setFileType, and PROT P without PBSZ.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { compileCommonsNetJob, java, section } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpApp } from './ftp-harness.ts';

let t: FtpApp;
let tmp: string;
let classes: string;

beforeAll(async () => {
  t = await startFtpApp();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-modes-'));
  classes = await compileCommonsNetJob('FtpsDefaultsJob.java');
});
afterAll(async () => {
  await t?.close();
  for (const dir of [tmp, classes]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('Commons Net with its defaults', () => {
  it('ASCII mode: the PDF is refused with "use binary mode (TYPE I)"; after setFileType(BINARY) it is stored byte for byte and attached', async () => {
    const acct = await t.ftpAccount();
    const invoice = await t.invoice(acct.liveKey);
    const pdf = await makePdf('ascii mode');
    expect(pdf.includes(0x0a)).toBe(true); // line ends that ASCII mode would change
    const local = path.join(tmp, 'invoice.pdf');
    fs.writeFileSync(local, pdf);
    const before = await t.counters();
    const r = await java(classes, 'FtpsDefaultsJob', [String(t.port), acct.ftpUsername, acct.liveKey, local, `${invoice.invoiceNumber}.pdf`]);
    expect(r.code, r.stderr).toBe(0);
    expect(section(r.stdout, 'PROT')).toMatch(/^200 /);
    expect(section(r.stdout, 'ASCII')).toMatch(/^refused\n550 .*\.pdf was not received: use binary mode \(TYPE I\) for PDF and ZIP files/);
    expect(section(r.stdout, 'BINARY')).toMatch(/^stored\n226 /);
    expect((await t.counters()).uploadsRefusedAscii - before.uploadsRefusedAscii).toBe(1);

    const records = (await t.imports(acct.liveKey)).filter((i: any) => i.filename === `${invoice.invoiceNumber}.pdf`);
    expect(records).toHaveLength(1);
    expect(await t.waitFor(acct.liveKey, records[0].id)).toMatchObject({ status: 'attached', invoice: invoice.id, size: pdf.length });
  });
});
