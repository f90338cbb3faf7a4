// Perl's Net::FTP and Ruby's Net::FTP in loops of 100 uploads, on TLS 1.2 and TLS 1.3 (pinned by
// the client). Both write a file, send close_notify and close the data connection without reading
// what the server sent: on TLS 1.3 that is the session tickets, and the client's kernel then
// answers with a reset that can reach the server before the end of the file is read (see
// docs/ftp.md, "Data connections"). Python's ftplib does the opposite: it waits for the server's
// close_notify after each upload, which the server lost on larger files (150 KB here). Every
// upload must be answered 226 and be an intake record.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { run } from './ftp-client-jobs.ts';
import { bigPdf, startFtpApp, type FtpApp } from './ftp-harness.ts';

const CLIENTS = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients');
const UPLOADS = 100;

let t: FtpApp;
let tmp: string;

beforeAll(async () => {
  t = await startFtpApp();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftps-loops-'));
});
afterAll(async () => {
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** `count` different PDFs named `<label>-<n>.pdf` in a folder of their own (of about `size` bytes, or small). */
async function files(label: string, count: number, size?: number): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(tmp, `${label}-`));
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = path.join(dir, `${label}-${String(i).padStart(3, '0')}.pdf`);
    fs.writeFileSync(p, size ? await bigPdf(size, `${label} ${i}`) : await makePdf(`${label} ${i}`));
    out.push(p);
  }
  return out;
}

describe.each([
  ['perl', 'Perl Net::FTP (starttls)', [path.join(CLIENTS, 'perl-loop.pl')], undefined],
  ['ruby', 'Ruby Net::FTP (ssl:)', [path.join(CLIENTS, 'ruby-loop.rb')], undefined],
  ['python3', 'Python ftplib.FTP_TLS, 150 KB files', [path.join(CLIENTS, 'ftplib-loop.py')], 150_000],
] as const)('%s: %s', (cmd, _name, script, size) => {
  it.each(['1.2', '1.3'])(
    `${UPLOADS} uploads over TLS %s: none lost`,
    async (tls) => {
      const acct = await t.ftpAccount();
      const label = `${cmd}-tls${tls.replace('.', '')}`;
      const local = await files(label, UPLOADS, size);
      const r = await run(cmd, [...script, String(t.port), acct.ftpUsername, acct.liveKey, tls, ...local], { timeoutMs: 240_000 });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(
        lines.filter((l) => !/^OK 226 /.test(l)),
        r.stdout,
      ).toEqual([]);
      expect(lines).toHaveLength(UPLOADS);
      const names = new Set((await t.imports(acct.liveKey)).map((i: any) => i.filename));
      expect(local.map((f) => path.basename(f)).filter((n) => !names.has(n))).toEqual([]);
      expect(t.logLines.filter((l) => l.includes(label) && l.includes('nothing received'))).toEqual([]);
    },
    300_000,
  );
});
