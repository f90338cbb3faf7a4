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
    port, user: acct.ftpUsername, password: acct.liveKey,
    good: { local: await file('good.pdf', await makePdf(`${label} by number`)), remote: `${good.invoiceNumber}.pdf` },
    temp: { local: await file('temp.pdf', await makePdf(`${label} renamed`)), remote: `${renamed.invoiceNumber}.pdf.part`, final: `${renamed.invoiceNumber}.pdf` },
    junk: { local: await file('junk.pdf', Buffer.from('this is not a PDF\n')), remote: `bad-${label}.pdf` },
  };
  return { job, acct, good, renamed };
}

/** What every client must have done: files attached, the failure listed and explained. */
async function expectJobDone(p: Prepared, r: clients.ClientRun, o: { renamed: boolean; nlst: boolean; owners?: boolean }) {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  const imports = await t.imports(p.acct.liveKey);
  const byName = (name: string) => imports.find((i: any) => i.filename === name);
  const attached = async (name: string, invoice: string) => {
    expect(byName(name), name).toBeDefined();
    expect(await t.waitFor(p.acct.liveKey, byName(name).id)).toMatchObject({ status: 'attached', invoice, channel: 'ftp' });
  };
  await attached(p.job.good.remote, p.good.id);
  if (o.renamed) await attached(p.job.temp.final, p.renamed.id);
  expect(byName(p.job.junk.remote)).toMatchObject({ status: 'failed' });
  const list = clients.section(r.stdout, 'LIST');
  expect(list).toContain(p.job.good.remote);
  // the status is the owner column; rclone's listing has no owners
  expect(list).toMatch(new RegExp(`${o.owners === false ? '' : 'failed .*'}${p.job.junk.remote}\\.error\\.txt`));
  if (o.nlst) expect(clients.section(r.stdout, 'NLST').split(/\r?\n/)).toEqual(expect.arrayContaining([p.job.good.remote, `${p.job.junk.remote}.error.txt`]));
  const error = clients.section(r.stdout, 'ERROR');
  expect(error).toContain(`File: ${p.job.junk.remote}`);
  expect(error).toContain('Reason: ');
}

describe('explicit FTPS (AUTH TLS, PBSZ 0, PROT P)', () => {
  const port = () => t.port;
  it('Python ftplib.FTP_TLS (starts the data TLS handshake after 150)', async () => {
    const p = await prepare(port(), 'ftplib');
    await expectJobDone(p, await clients.ftplib(p.job), { renamed: true, nlst: true });
  });
  it('lftp (starts the data TLS handshake after 150)', async () => {
    const p = await prepare(port(), 'lftp');
    await expectJobDone(p, await clients.lftp(p.job, 'explicit'), { renamed: true, nlst: true });
  });
  it('PHP ftp_ssl_connect (starts the data TLS handshake after 150)', async () => {
    const p = await prepare(port(), 'php');
    await expectJobDone(p, await clients.php(p.job), { renamed: true, nlst: true });
  });
  it('Java Commons Net FTPSClient', async () => {
    const p = await prepare(port(), 'java');
    await expectJobDone(p, await clients.commonsNet(javaClasses, p.job, 'explicit'), { renamed: true, nlst: true });
  });
  it('curl --ssl-reqd', async () => {
    const p = await prepare(port(), 'curl');
    await expectJobDone(p, await clients.curl(p.job, 'explicit'), { renamed: true, nlst: true });
  });
  it('basic-ftp', async () => {
    const p = await prepare(port(), 'basicftp');
    await expectJobDone(p, await clients.basicFtp(p.job, 'explicit'), { renamed: true, nlst: false });
  });
  it('rclone ftp backend with explicit_tls', async () => {
    const p = await prepare(port(), 'rclone');
    await expectJobDone(p, await clients.rclone(p.job, 'explicit'), { renamed: true, nlst: false, owners: false });
  });
});

describe('implicit FTPS (FTPS_IMPLICIT_PORT)', () => {
  const port = () => implicitPort;
  it('lftp ftps://', async () => {
    const p = await prepare(port(), 'lftp-implicit');
    await expectJobDone(p, await clients.lftp(p.job, 'implicit'), { renamed: true, nlst: true });
  });
  it('Java Commons Net FTPSClient(isImplicit)', async () => {
    const p = await prepare(port(), 'java-implicit');
    await expectJobDone(p, await clients.commonsNet(javaClasses, p.job, 'implicit'), { renamed: true, nlst: true });
  });
  it('curl ftps://', async () => {
    const p = await prepare(port(), 'curl-implicit');
    await expectJobDone(p, await clients.curl(p.job, 'implicit'), { renamed: true, nlst: true });
  });
  it('basic-ftp secure: implicit', async () => {
    const p = await prepare(port(), 'basicftp-implicit');
    await expectJobDone(p, await clients.basicFtp(p.job, 'implicit'), { renamed: true, nlst: false });
  });
  it('rclone ftp backend with tls (implicit)', async () => {
    const p = await prepare(port(), 'rclone-implicit');
    await expectJobDone(p, await clients.rclone(p.job, 'implicit'), { renamed: true, nlst: false, owners: false });
  });
});
