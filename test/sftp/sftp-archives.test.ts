// A ZIP archive by OpenSSH sftp -b: the upload's close is answered OK once every file in it is
// staged, and each PDF in it becomes an attached import linked to the archive's import.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveImports, invoicesNumbered, make7z, makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { sftpTestFile, sftpWithPassword } from './sftp-harness.ts';

const setup = sftpTestFile();

describe('ZIP archives by SFTP', () => {
  it('sftp -b put day.zip (50 PDFs, over the 5 MB PDF cap): 50 attached imports of the archive', async () => {
    const { app, account, dir } = setup;
    const invoices = await invoicesNumbered(app.svc.container, { accountId: account.id, mode: 'live' }, 'SZ-', 50);
    // 110 KB each (random, so deflate cannot shrink them): the archive is larger than a PDF may be
    const zip = await makeZip(await pdfsNamed('SZ-', 50, 110_000));
    expect(zip.length).toBeGreaterThan(5 * 1024 * 1024);
    const file = path.join(dir, 'day.zip');
    fs.writeFileSync(file, zip);
    const batch = path.join(dir, 'zip.batch');
    fs.writeFileSync(batch, `put ${file}\n`);
    const res = await sftpWithPassword({ port: app.sftpPort, user: account.ftpUsername, password: account.liveKey, batch });
    expect(res.code, res.stderr).toBe(0);
    const [archive] = (await app.imports(account.liveKey)).filter((r) => r.filename === 'day.zip');
    expect(archive).toMatchObject({ channel: 'sftp', status: 'unpacked', reason: 'Unpacked into 50 files', size: zip.length });
    const staged = await app.db.query<{ n: number }>('select count(*)::int as n from intake_staging where archive_id = $1', [archive.id]);
    expect(staged[0].n).toBe(50); // all staged before the close was answered
    const imports = await archiveImports(app.request, account.liveKey, archive.id, 50);
    expect(imports.filter((r) => r.status !== 'attached')).toEqual([]);
    expect(imports.map((r) => r.invoice)).toEqual(invoices.map((i) => i.id));
    expect(imports[0]).toMatchObject({ channel: 'sftp', archive: archive.id });
  });

  it('sftp -b put Belege.7z: a failed import that says why', async () => {
    const { app, account, dir } = setup;
    const file = path.join(dir, 'Belege.7z');
    fs.writeFileSync(file, await make7z([{ name: 'a.pdf', bytes: (await pdfsNamed('S7-', 1))[0].bytes }]));
    const batch = path.join(dir, '7z.batch');
    fs.writeFileSync(batch, `put ${file}\n`);
    const res = await sftpWithPassword({ port: app.sftpPort, user: account.ftpUsername, password: account.liveKey, batch });
    expect(res.code, res.stderr).toBe(0);
    const [record] = (await app.imports(account.liveKey)).filter((r) => r.filename === 'Belege.7z');
    expect(record).toMatchObject({ channel: 'sftp', status: 'failed', reason: '7z archives are not read: send the PDFs or a ZIP' });
  });
});
