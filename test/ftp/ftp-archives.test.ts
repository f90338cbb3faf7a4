// ZIP archives by FTPS with real clients (curl, basic-ftp): the 226 comes once every file in the
// archive is staged; archives may be larger than a PDF's 5 MB cap, up to ZIP_MAX_TOTAL_BYTES.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveImports, invoicesNumbered, make7z, makeZip, pdfsNamed } from '../helpers/zip-archives.ts';
import { connectFtp, curlUpload, intakeIdOf, upload } from './ftp-clients.ts';
import { startFtpApp, type FtpAccount, type FtpApp } from './ftp-harness.ts';

let t: FtpApp;
let acct: FtpAccount;
let tmp: string;

beforeAll(async () => {
  t = await startFtpApp({ config: { zipMaxTotalBytes: 12 * 1024 * 1024 } });
  acct = await t.ftpAccount();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-zip-'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const scope = () => ({ accountId: acct.id, mode: 'live' as const });
const staged = async (archiveId: string) =>
  (await t.db.query<{ n: number }>('select count(*)::int as n from intake_staging where archive_id = $1', [archiveId]))[0].n;

describe('ZIP archives by FTPS', () => {
  it('curl -T day.zip with 50 PDFs named after invoice numbers: 226 once all are staged, then 50 attached imports', async () => {
    const invoices = await invoicesNumbered(t.svc.container, scope(), 'FZ-', 50);
    const file = path.join(tmp, 'day.zip');
    fs.writeFileSync(file, await makeZip(await pdfsNamed('FZ-', 50)));
    const r = await curlUpload(t.port, acct.ftpUsername, acct.liveKey, file, 'day.zip', { tls: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/< 226 day\.zip received as imp_\w+, status unpacked: Unpacked into 50 files/);
    const archiveId = intakeIdOf(/< 226 .*/.exec(r.stderr)![0]);
    expect(await staged(archiveId)).toBe(50);
    const imports = await archiveImports(t.request, acct.liveKey, archiveId, 50);
    expect(imports.filter((i) => i.status !== 'attached')).toEqual([]);
    expect(imports.map((i) => i.invoice)).toEqual(invoices.map((i) => i.id));
    expect(imports[0]).toMatchObject({ channel: 'ftp', sender: expect.stringMatching(new RegExp(`^${acct.ftpUsername}@`)), archive: archiveId });
  });

  it('basic-ftp: an archive over 5 MB is taken (its cap is ZIP_MAX_TOTAL_BYTES); a PDF over 5 MB inside it is refused with the reason', async () => {
    const [inv] = await invoicesNumbered(t.svc.container, scope(), 'FB-', 1);
    const pdf = (await pdfsNamed('FB-', 1))[0];
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5 * 1024 * 1024)]);
    const zip = await makeZip([pdf, { name: 'scan.pdf', bytes: big }, { name: 'filler.bin', bytes: randomBytes(1024 * 1024) }]);
    expect(zip.length).toBeGreaterThan(5 * 1024 * 1024);
    const client = await connectFtp(t.port, acct.ftpUsername, acct.liveKey);
    try {
      const res = await upload(client, 'big.zip', zip);
      expect(res.code).toBe(226);
      const [a, b, c] = await archiveImports(t.request, acct.liveKey, intakeIdOf(res.message), 3);
      expect(a).toMatchObject({ filename: 'FB-0.pdf', status: 'attached', invoice: inv.id });
      expect(b).toMatchObject({
        filename: 'scan.pdf',
        status: 'failed',
        reason: `scan.pdf in the ZIP archive is larger than 5242880 bytes (${big.length} bytes)`,
      });
      expect(c).toMatchObject({ filename: 'filler.bin', status: 'failed', reason: 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' });
      // over ZIP_MAX_TOTAL_BYTES (12 MB here) the upload itself is refused while it streams
      await expect(upload(client, 'huge.zip', randomBytes(13 * 1024 * 1024))).rejects.toThrow(/552 huge\.zip is larger than 12582912 bytes/);
    } finally {
      client.close();
    }
  });

  it('basic-ftp: a 1,001-entry archive is answered 226 with its refusal; nothing of it is staged', async () => {
    const zip = await makeZip(Array.from({ length: 1001 }, (_, i) => ({ name: `E-${i}.pdf`, bytes: Buffer.from(`%PDF-1.4 ${i}`) })));
    const client = await connectFtp(t.port, acct.ftpUsername, acct.liveKey);
    try {
      const res = await upload(client, 'many.zip', zip);
      expect(res.message).toMatch(/^226 many\.zip received as imp_\w+, status failed: The ZIP archive has 1001 entries; at most 1000 are accepted/);
      expect(await staged(intakeIdOf(res.message))).toBe(0);
    } finally {
      client.close();
    }
  });

  it('curl -T Belege.7z (and a .rar): 226 with a failed import that says why, never an unrecorded refusal', async () => {
    const file = path.join(tmp, 'Belege.7z');
    fs.writeFileSync(file, await make7z([{ name: 'a.pdf', bytes: (await pdfsNamed('F7-', 1))[0].bytes }]));
    const r = await curlUpload(t.port, acct.ftpUsername, acct.liveKey, file, 'Belege.7z', { tls: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/< 226 Belege\.7z received as imp_\w+, status failed: 7z archives are not read: send the PDFs or a ZIP/);
    const rar = await curlUpload(t.port, acct.ftpUsername, acct.liveKey, file, 'Belege.rar', { tls: true });
    // 7z bytes under a RAR name: the bytes say what it is
    expect(rar.stderr).toMatch(/< 226 Belege\.rar received as imp_\w+, status failed: 7z archives are not read/);
    const res = await t.request('GET', `/v2/imports/${intakeIdOf(/< 226 .*/.exec(r.stderr)![0])}`, { key: acct.liveKey });
    expect(res.body).toMatchObject({ channel: 'ftp', filename: 'Belege.7z', status: 'failed', reasonCode: 'archive_not_read', reasonParams: { kind: '7z' } });
  });
});
