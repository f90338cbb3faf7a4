// FTP on a directory store whose volume turns read-only: curl's upload gets 451 (a passing
// failure, its client tries again) and no record is staged; writable again, the same upload is
// received and attached once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { curlUpload, intakeIdOf } from '../ftp/ftp-clients.ts';
import { ftpTestFile } from '../ftp/ftp-harness.ts';

const mount = (...args: string[]) => execFileSync('mount', args, { stdio: 'pipe' });
const source = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-volume-'));
const volume = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-mounted-'));
mount('--bind', source, volume); // before the service opens its store (ftpTestFile starts it in beforeAll)

const t = ftpTestFile({ tls: false, config: { ftpAllowPlain: true, documentStore: 'directory', documentStoreDir: volume } });

afterAll(() => {
  try {
    execFileSync('umount', [volume], { stdio: 'pipe' });
  } catch {
    // unmounted already
  }
  fs.rmSync(volume, { recursive: true, force: true });
  fs.rmSync(source, { recursive: true, force: true });
});

describe('FTP on a document store that cannot take the file', () => {
  it('a read-only volume: 451 and nothing staged; writable again: 226 and attached once', async () => {
    const { key } = await t.uploadKey(t.account.liveKey, ['127.0.0.0/8']);
    const inv = await t.invoice(t.account.liveKey);
    const file = path.join(t.dir, `${inv.invoiceNumber}.pdf`);
    fs.writeFileSync(file, await makePdf('ftp-store-faults'));
    mount('-o', 'remount,bind,ro', volume);
    let refused;
    try {
      refused = await curlUpload(t.port, t.account.ftpUsername, key, file, `${inv.invoiceNumber}.pdf`, { tls: false });
    } finally {
      mount('-o', 'remount,bind,rw', volume);
    }
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/< 451 /);
    expect(await t.imports(t.account.liveKey)).toEqual([]);

    const sent = await curlUpload(t.port, t.account.ftpUsername, key, file, `${inv.invoiceNumber}.pdf`, { tls: false });
    expect(sent.code).toBe(0);
    const id = intakeIdOf(/< 226 (.*)/.exec(sent.stderr)![1]);
    expect(await t.waitFor(t.account.liveKey, id)).toMatchObject({ status: 'attached', invoice: inv.id });
    expect((await t.documentsOf(inv.id)).filter((d) => !d.deleted_at)).toHaveLength(1);
  });
});
