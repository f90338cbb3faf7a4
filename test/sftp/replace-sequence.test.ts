// WinSCP's (and FileZilla's) default way to replace a file: upload a temporary name, delete the
// old name, rename the temporary one. Over SFTP with paramiko doing exactly WinSCP's steps, over
// FTP with ftplib (STOR x.pdf.filepart, DELE x.pdf, RNFR/RNTO). The delete of a received file is
// accepted as "about to be replaced" and deletes nothing; the rename hands the corrected file in
// as a new file of that name (whether it replaces the document is the matching rules' decision).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bigPdf, run, sftpTestFile } from './sftp-harness.ts';

const setup = sftpTestFile();
const PARAMIKO = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients', 'paramiko-winscp.py');

const FTPLIB = `
import ftplib, ssl, sys
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
port, user, password, first, corrected, remote = sys.argv[1:7]
ftp = ftplib.FTP_TLS(context=ctx, timeout=30)
ftp.connect('127.0.0.1', int(port)); ftp.login(user, password); ftp.prot_p()
with open(first, 'rb') as f: print('== FIRST', ftp.storbinary('STOR ' + remote, f))
with open(corrected, 'rb') as f: print('== FILEPART', ftp.storbinary('STOR ' + remote + '.filepart', f))
print('== DELE', ftp.delete(remote))
print('== RENAMED', ftp.rename(remote + '.filepart', remote))
ftp.quit()
`;

/** An invoice, its first PDF and a corrected one (over 100 KB: WinSCP uses a temporary name then). */
async function versions(label: string) {
  const app = setup.app;
  const acct = await app.ftpAccount();
  const invoice = await app.invoice(acct.liveKey);
  const first = path.join(setup.dir, `${label}-first.pdf`);
  const corrected = path.join(setup.dir, `${label}-corrected.pdf`);
  fs.writeFileSync(first, await bigPdf(120_000, `${invoice.invoiceNumber} first`));
  fs.writeFileSync(corrected, await bigPdf(130_000, `${invoice.invoiceNumber} corrected`));
  return { acct, invoice, first, corrected, remote: `${invoice.invoiceNumber}.pdf` };
}

/** Both versions are intake records of the name: the first stays attached, the corrected one was handed in. */
async function expectBothKept(v: Awaited<ReturnType<typeof versions>>, channel: 'ftp' | 'sftp') {
  const records = (await setup.app.imports(v.acct.liveKey)).filter((r) => r.filename === v.remote);
  expect(records.map((r) => r.size).sort()).toEqual([fs.statSync(v.first).size, fs.statSync(v.corrected).size].sort());
  const first = records.find((r) => r.size === fs.statSync(v.first).size)!;
  expect(await setup.app.waitFor(v.acct.liveKey, first.id)).toMatchObject({ status: 'attached', invoice: v.invoice.id });
  const corrected = records.find((r) => r.size === fs.statSync(v.corrected).size)!;
  // handed in as a new file of that name; whether it replaces the document is the matching rules' call
  expect(await setup.app.waitFor(v.acct.liveKey, corrected.id)).toMatchObject({ channel, status: expect.stringMatching(/^(attached|failed)$/) });
}

describe("WinSCP's replace sequence", () => {
  it('over SFTP (paramiko: upload .filepart, remove, rename); a Latin-1 name is refused with the reason', async () => {
    const v = await versions('sftp');
    const r = await run('/usr/bin/python3', [PARAMIKO, String(setup.app.sftpPort), v.acct.ftpUsername, v.acct.liveKey, v.first, v.corrected, v.remote]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`== FIRST ${fs.statSync(v.first).size}`);
    expect(r.stdout).toContain(`== FILEPART ${fs.statSync(v.corrected).size}`);
    expect(r.stdout).toContain('== REMOVED');
    expect(r.stdout).toContain(`== RENAMED ${fs.statSync(v.corrected).size}`);
    expect(r.stdout).toMatch(/== LATIN1 refused: .*The name is not valid UTF-8/);
    await expectBothKept(v, 'sftp');
    expect(setup.app.logLines.some((l) => l.includes('sftp delete') && l.includes('about to be replaced'))).toBe(true);
  });

  it('over FTP (ftplib: STOR .filepart, DELE, RNFR/RNTO)', async () => {
    const v = await versions('ftp');
    const r = await run('python3', ['-c', FTPLIB, String(setup.app.port), v.acct.ftpUsername, v.acct.liveKey, v.first, v.corrected, v.remote]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/== FIRST 226 /);
    expect(r.stdout).toMatch(/== FILEPART 226 .*held/);
    expect(r.stdout).toMatch(new RegExp(`== DELE 250 ${v.remote.replace(/\./g, '\\.')} is about to be replaced: nothing was deleted`));
    expect(r.stdout).toMatch(new RegExp(`== RENAMED 250 ${v.remote.replace(/\./g, '\\.')} received as imp_`));
    await expectBothKept(v, 'ftp');
  });
});
