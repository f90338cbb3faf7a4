// A file over the 5 MB cap, as each client shows it: the refusal's words must reach the person,
// not a broken connection. FTP reads the rest of the file and drops it, then answers 552 on the
// control connection before closing the data connection; SFTP answers the write with a STATUS
// carrying the words, and writes them on the channel's stderr for OpenSSH's sftp (which shows a
// STATUS only as "Failure"). Each client is a real process, uploading 25 MB.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCommonsNetJob, java, run, section } from './ftp-client-jobs.ts';
import { sftpWithPassword, startSftpApp, type SftpApp } from '../sftp/sftp-harness.ts';
import type { FtpAccount } from './ftp-harness.ts';

const SIZE = 25 * 1024 * 1024;
const WORDS = /is larger than 5242880 bytes \(5 MB\): refused, nothing was received/;

let t: SftpApp;
let acct: FtpAccount;
let tmp: string;
let big: string;
let classes: string;

beforeAll(async () => {
  t = await startSftpApp();
  acct = await t.ftpAccount();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-size-cap-'));
  big = path.join(tmp, 'big.pdf');
  fs.writeFileSync(big, Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(SIZE)]));
  classes = await compileCommonsNetJob('FtpsDefaultsJob.java');
});
afterAll(async () => {
  await t?.close();
  for (const dir of [tmp, classes]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const PHP = `
$c = ftp_ssl_connect('127.0.0.1', (int)$argv[1], 20);
ftp_login($c, $argv[2], $argv[3]) or exit(3);
ftp_pasv($c, true);
$ok = @ftp_put($c, $argv[5], $argv[4], FTP_BINARY);
echo ($ok ? "stored" : "refused: " . error_get_last()['message']), "\\n";
echo "NOOP: ", ftp_raw($c, 'NOOP')[0], "\\n";
`;

const FTPLIB = `
import ftplib, ssl, sys
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
ftp = ftplib.FTP_TLS(context=ctx, timeout=30)
ftp.connect('127.0.0.1', int(sys.argv[1])); ftp.login(sys.argv[2], sys.argv[3]); ftp.prot_p()
try:
    with open(sys.argv[4], 'rb') as f:
        print('stored', ftp.storbinary('STOR ' + sys.argv[5], f))
except ftplib.all_errors as e:
    print('refused:', e)
print('NOOP:', ftp.voidcmd('NOOP'))
`;

const nothingReceived = async (name: string) => expect((await t.imports(acct.liveKey)).some((i: any) => i.filename === name)).toBe(false);

describe('FTP: 25 MB against the 5 MB cap', () => {
  it('curl shows the 552 and its words', async () => {
    const r = await run(
      'curl',
      ['-sS', '-v', '--ssl-reqd', '-k', '--user', `${acct.ftpUsername}:${acct.liveKey}`, '-T', big, `ftp://127.0.0.1:${t.port}/curl-big.pdf`],
      { timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr.slice(-500)).toBe(70); // curl's code for a 552 (CURLE_REMOTE_DISK_FULL), not a reset (56)
    expect(r.stderr).toMatch(new RegExp(`< 552 curl-big\\.pdf ${WORDS.source}`));
    await nothingReceived('curl-big.pdf');
  });

  it('PHP ftp_put fails with the words, and the session goes on', async () => {
    const r = await run('php', ['-r', PHP, '--', String(t.port), acct.ftpUsername, acct.liveKey, big, 'php-big.pdf'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`refused: ftp_put\\(\\): php-big\\.pdf ${WORDS.source}`));
    expect(r.stdout).toMatch(/NOOP: 200/);
    await nothingReceived('php-big.pdf');
  });

  it('Java Commons Net storeFile returns false with the 552 reply', async () => {
    const r = await java(classes, 'FtpsDefaultsJob', [String(t.port), acct.ftpUsername, acct.liveKey, big, 'java-big.pdf']);
    expect(r.code, r.stderr).toBe(0);
    expect(section(r.stdout, 'BINARY')).toMatch(new RegExp(`^refused\\n552 java-big\\.pdf ${WORDS.source}`));
    await nothingReceived('java-big.pdf');
  });

  it('ftplib raises the 552 for this STOR (not for the next command)', async () => {
    const r = await run('python3', ['-c', FTPLIB, String(t.port), acct.ftpUsername, acct.liveKey, big, 'ftplib-big.pdf'], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`refused: 552 ftplib-big\\.pdf ${WORDS.source}`));
    expect(r.stdout).toMatch(/NOOP: 200/);
    await nothingReceived('ftplib-big.pdf');
  });
});

describe('SFTP: 25 MB against the 5 MB cap', () => {
  it('OpenSSH sftp shows the words (the channel\'s stderr) besides its "Failure"', async () => {
    const batch = path.join(tmp, 'big.batch');
    fs.writeFileSync(batch, `put ${big} sftp-big.pdf\n`);
    const r = await sftpWithPassword({ port: t.sftpPort, user: acct.ftpUsername, password: acct.liveKey, batch, timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`sftp-big\\.pdf ${WORDS.source}`));
    await nothingReceived('sftp-big.pdf');
  });
});
