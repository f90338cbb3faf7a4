// Interop: the FTP clients accounting systems use, each as a real process against the real service,
// over explicit FTPS (AUTH TLS on FTP_PORT) and implicit FTPS (FTPS_IMPLICIT_PORT). Each logs in,
// uploads <invoice_number>.pdf (attached), uploads under a temporary name and renames it (attached),
// uploads a file that fails, lists, and reads the failed file's .error.txt. ftplib and PHP have no
// implicit FTPS. rclone runs one session per command: its rename (`moveto`) comes in the session
// after the temporary upload's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { freePort } from '../../testkit/ports.ts';
import * as clients from './ftp-client-jobs.ts';
import { startFtpApp, type FtpAccount, type FtpApp } from './ftp-harness.ts';

let t: FtpApp;
let implicitPort: number;
let tmp: string;
let javaClasses: string;

beforeAll(async () => {
  implicitPort = await freePort();
  t = await startFtpApp({ config: { ftpsImplicitPort: implicitPort } });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftps-interop-'));
  javaClasses = await clients.compileCommonsNetJob();
});
afterAll(async () => {
  await t?.close();
  for (const dir of [tmp, javaClasses]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Prepared {
  job: clients.ClientJob;
  acct: FtpAccount;
  good: { id: string; invoiceNumber: string };
  renamed: { id: string; invoiceNumber: string };
}

/** A fresh account, two invoices and the three local files of a job. */
async function prepare(port: number, label: string): Promise<Prepared> {
  const acct = await t.ftpAccount();
  const good = await t.invoice(acct.liveKey);
  const renamed = await t.invoice(acct.liveKey);
  const file = async (name: string, bytes: Buffer) => {
    const p = path.join(tmp, `${label}-${name}`);
    fs.writeFileSync(p, bytes);
    return p;
  };
  const job: clients.ClientJob = {
    port,
    user: acct.ftpUsername,
    password: acct.liveKey,
    good: { local: await file('good.pdf', await makePdf(`${label} by number`)), remote: `${good.invoiceNumber}.pdf` },
    temp: {
      local: await file('temp.pdf', await makePdf(`${label} renamed`)),
      remote: `${renamed.invoiceNumber}.pdf.part`,
      final: `${renamed.invoiceNumber}.pdf`,
    },
    junk: { local: await file('junk.pdf', Buffer.from('this is not a PDF\n')), remote: `bad-${label}.pdf` },
  };
  return { job, acct, good, renamed };
}

/** What every client must have done: files attached (the renamed one too), the failure listed and explained. */
async function expectJobDone(p: Prepared, r: clients.ClientRun, expected: Expected) {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const imports = await t.imports(p.acct.liveKey);
  const byName = (name: string) => imports.find((i: any) => i.filename === name);
  const attached = async (name: string, invoice: string) => {
    expect(byName(name), name).toBeDefined();
    expect(await t.waitFor(p.acct.liveKey, byName(name).id)).toMatchObject({ status: 'attached', invoice, channel: 'ftp' });
  };
  await attached(p.job.good.remote, p.good.id);
  await attached(p.job.temp.final, p.renamed.id);
  expect(byName(p.job.junk.remote)).toMatchObject({ status: 'failed' });
  const list = clients.section(r.stdout, 'LIST');
  expect(list).toContain(p.job.good.remote);
  // the status is the owner column; rclone's listing has no owners
  expect(list).toMatch(new RegExp(`${expected.owners === false ? '' : 'failed .*'}${p.job.junk.remote}\\.error\\.txt`));
  if (expected.nlst)
    expect(clients.section(r.stdout, 'NLST').split(/\r?\n/)).toEqual(expect.arrayContaining([p.job.good.remote, `${p.job.junk.remote}.error.txt`]));
  const error = clients.section(r.stdout, 'ERROR');
  expect(error).toContain(`File: ${p.job.junk.remote}`);
  expect(error).toContain('Reason: ');
}

/** Whether the client's output has an NLST section, and a LIST with owner columns (rclone's has none). */
interface Expected {
  nlst: boolean;
  owners?: boolean;
}

type Case = [name: string, label: string, run: (job: clients.ClientJob) => Promise<clients.ClientRun>, expected: Expected];

async function runJob(port: number, label: string, run: Case[2], expected: Expected) {
  const p = await prepare(port, label);
  await expectJobDone(p, await run(p.job), expected);
}

describe('explicit FTPS (AUTH TLS, PBSZ 0, PROT P)', () => {
  it.each<Case>([
    ['Python ftplib.FTP_TLS (starts the data TLS handshake after 150)', 'ftplib', (job) => clients.ftplib(job), { nlst: true }],
    ['lftp (starts the data TLS handshake after 150)', 'lftp', (job) => clients.lftp(job, 'explicit'), { nlst: true }],
    ['PHP ftp_ssl_connect (starts the data TLS handshake after 150)', 'php', (job) => clients.php(job), { nlst: true }],
    ['Java Commons Net FTPSClient', 'java', (job) => clients.commonsNet(javaClasses, job, 'explicit'), { nlst: true }],
    ['curl --ssl-reqd', 'curl', (job) => clients.curl(job, 'explicit'), { nlst: true }],
    ['basic-ftp', 'basicftp', (job) => clients.basicFtp(job, 'explicit'), { nlst: false }],
    ['rclone ftp backend with explicit_tls', 'rclone', (job) => clients.rclone(job, 'explicit'), { nlst: false, owners: false }],
  ])('%s', (_, label, run, expected) => runJob(t.port, label, run, expected));
});

describe('implicit FTPS (FTPS_IMPLICIT_PORT)', () => {
  it.each<Case>([
    ['lftp ftps://', 'lftp-implicit', (job) => clients.lftp(job, 'implicit'), { nlst: true }],
    ['Java Commons Net FTPSClient(isImplicit)', 'java-implicit', (job) => clients.commonsNet(javaClasses, job, 'implicit'), { nlst: true }],
    ['curl ftps://', 'curl-implicit', (job) => clients.curl(job, 'implicit'), { nlst: true }],
    ['basic-ftp secure: implicit', 'basicftp-implicit', (job) => clients.basicFtp(job, 'implicit'), { nlst: false }],
    ['rclone ftp backend with tls (implicit)', 'rclone-implicit', (job) => clients.rclone(job, 'implicit'), { nlst: false, owners: false }],
  ])('%s', (_, label, run, expected) => runJob(implicitPort, label, run, expected));
});
