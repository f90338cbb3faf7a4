// Uploads over FTPS (TLS required, the default with a certificate) with basic-ftp and curl, through
// the real intake pipeline (PostgreSQL, Redis, workers) to attached documents.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import type { Client } from 'basic-ftp';
import { connectFtp, curlUpload, download, ftpCode, intakeIdOf, upload } from './ftp-clients.ts';
import { expectCurlUploadsAttached, ftpTestFile, type FtpAccount } from './ftp-harness.ts';

const t = ftpTestFile();

/** `use` gets a fresh account and its FTPS session (basic-ftp), closed after. */
async function freshSession(use: (client: Client, a: FtpAccount) => Promise<void>): Promise<void> {
  const a = await t.ftpAccount();
  const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
  try {
    await use(client, a);
  } finally {
    client.close();
  }
}

/** The session went on after its refusals: `name` uploaded (226) and is the account's only import. */
async function expectOnlyImport(client: Client, a: FtpAccount, name: string, pdf: Buffer, filename = name) {
  expect((await upload(client, name, pdf)).code).toBe(226);
  expect((await t.imports(a.liveKey)).map((r: any) => r.filename)).toEqual([filename]);
}

describe('uploads over FTPS with basic-ftp', () => {
  it('attaches <invoice_id>.pdf and <invoice_number>.pdf to their invoices; 226 names the staged intake record', async () => {
    const byId = await t.invoice(t.account.liveKey);
    const byNumber = await t.invoice(t.account.liveKey);
    const client = await connectFtp(t.port, t.account.ftpUsername, t.account.liveKey);
    try {
      const pdfA = await makePdf('by id');
      const r1 = await upload(client, `${byId.id}.pdf`, pdfA);
      expect(r1.code).toBe(226);
      const r2 = await upload(client, `${byNumber.invoiceNumber}.pdf`, await makePdf('by number'));
      expect(r2.code).toBe(226);
      // 226 only after receive(): the record exists, staged, when the client reads the reply
      const id1 = intakeIdOf(r1.message);
      const staged = await t.db.query('select id from intake_records where id = $1', [id1]);
      expect(staged).toHaveLength(1);
      const done1 = await t.waitFor(t.account.liveKey, id1);
      const done2 = await t.waitFor(t.account.liveKey, intakeIdOf(r2.message));
      expect(done1).toMatchObject({ status: 'attached', invoice: byId.id, channel: 'ftp', filename: `${byId.id}.pdf`, size: pdfA.length });
      expect(done1.sender).toBe(`${t.account.ftpUsername}@127.0.0.1`);
      expect(done2).toMatchObject({ status: 'attached', invoice: byNumber.id, channel: 'ftp' });
      const docs = await t.documentsOf(byId.id);
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ source: 'ftp', id: done1.document });
    } finally {
      client.close();
    }
  });

  it('with the test key, files go to test mode: they match test invoices only and only the test key sees them', async () => {
    const number = `T-${Date.now()}`;
    const liveInvoice = await t.invoice(t.account.liveKey, number);
    const testInvoice = await t.invoice(t.account.testKey, number);
    const client = await connectFtp(t.port, t.account.ftpUsername, t.account.testKey);
    try {
      const res = await upload(client, `${number}.pdf`, await makePdf('test mode'));
      const id = intakeIdOf(res.message);
      expect(await t.waitFor(t.account.testKey, id)).toMatchObject({ status: 'attached', invoice: testInvoice.id });
      expect((await t.request('GET', `/v2/imports/${id}`, { key: t.account.liveKey })).status).toBe(404);
      expect(await t.documentsOf(liveInvoice.id)).toHaveLength(0);
      expect((await t.documentsOf(testInvoice.id))[0].source).toBe('ftp');
    } finally {
      client.close();
    }
  });

  it('a rotated key stops working for FTP at once on the node that rotated it, also in sessions opened with it; the new key works', async () => {
    const a = await t.ftpAccount();
    const open = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    const other = await connectFtp(t.port, a.ftpUsername, a.testKey);
    try {
      expect((await upload(open, 'before.pdf', await makePdf('before'))).code).toBe(226);
      const newKey = await t.svc.container.accounts.rotateKey(a.id, 'live');
      expect(await ftpCode(upload(open, 'after.pdf', await makePdf('after')))).toBe(530);
      expect(await ftpCode(connectFtp(t.port, a.ftpUsername, a.liveKey))).toBe(530);
      // the test key was not rotated: its session goes on
      expect((await upload(other, 'test.pdf', await makePdf('test'))).code).toBe(226);
      const fresh = await connectFtp(t.port, a.ftpUsername, newKey);
      expect((await upload(fresh, 'new.pdf', await makePdf('new'))).code).toBe(226);
      fresh.close();
      expect((await t.imports(newKey)).map((r: any) => r.filename)).toEqual(['new.pdf', 'before.pdf']);
    } finally {
      open.close();
      other.close();
    }
  });

  it('renames a temporary upload (WinSCP x.pdf.filepart, scripts x.tmp) to its .pdf name: attached; nothing before the rename', async () => {
    const a = await t.invoice(t.account.liveKey);
    const b = await t.invoice(t.account.liveKey);
    const client = await connectFtp(t.port, t.account.ftpUsername, t.account.liveKey);
    try {
      const held = await upload(client, `${a.invoiceNumber}.pdf.filepart`, await makePdf('winscp'));
      expect(held.code).toBe(226);
      expect(held.message).toMatch(/held/);
      // held in memory only: no intake record yet, and LIST shows it as uploading
      expect((await t.imports(t.account.liveKey)).some((r: any) => r.filename.startsWith(a.invoiceNumber))).toBe(false);
      const listed = await client.list();
      expect(listed.find((f) => f.name === `${a.invoiceNumber}.pdf.filepart`)?.user).toBe('uploading');
      const renamed = await client.rename(`${a.invoiceNumber}.pdf.filepart`, `${a.invoiceNumber}.pdf`);
      expect(renamed.code).toBe(250);
      expect(await t.waitFor(t.account.liveKey, intakeIdOf(renamed.message))).toMatchObject({
        status: 'attached',
        invoice: a.id,
        filename: `${a.invoiceNumber}.pdf`,
      });

      await upload(client, 'upload-1234.tmp', await makePdf('tmp'));
      const r2 = await client.rename('upload-1234.tmp', `${b.id}.pdf`);
      expect(await t.waitFor(t.account.liveKey, intakeIdOf(r2.message))).toMatchObject({ status: 'attached', invoice: b.id });
      // a name that was already handed on cannot be renamed (it would attach under the old name)
      expect(await ftpCode(client.rename(`${b.id}.pdf`, 'other.pdf'))).toBe(550);
      // a temporary upload cannot become a non-PDF name
      await upload(client, 'x.tmp', await makePdf('x'));
      expect(await ftpCode(client.rename('x.tmp', 'x.txt'))).toBe(553);
    } finally {
      client.close();
    }
  });

  it('refuses names with path parts and non-PDF names (553), stages nothing; the directory is flat', () =>
    freshSession(async (client, a) => {
      const before = await t.counters();
      const pdf = await makePdf('names');
      for (const name of ['../evil.pdf', 'sub/x.pdf', '..\\evil.pdf', '/etc/x.pdf', 'invoice.txt', 'invoice.pdf.exe', 'noextension']) {
        expect(await ftpCode(upload(client, name, pdf)), name).toBe(553);
      }
      expect((await t.counters()).uploadsRefusedName - before.uploadsRefusedName).toBe(7);
      expect(await ftpCode(client.cd('sub'))).toBe(550);
      expect(await client.pwd()).toBe('/');
      // the root itself, named absolutely, is fine
      await expectOnlyImport(client, a, '/rooted.pdf', pdf, 'rooted.pdf');
    }));

  it('refuses an upload over 5 MB with 552 while it streams, and stages nothing', () =>
    freshSession(async (client, a) => {
      const before = await t.counters();
      const big = Buffer.concat([await makePdf('big'), Buffer.alloc(5 * 1024 * 1024, 0x20)]);
      expect(await ftpCode(upload(client, 'big.pdf', big))).toBe(552);
      expect((await t.counters()).uploadsRefusedTooLarge - before.uploadsRefusedTooLarge).toBe(1);
      await expectOnlyImport(client, a, 'small.pdf', await makePdf('small'));
    }));

  it('refuses MKD, RMD, SITE, APPE and STOU with their codes, DELE of anything but a received file (which stays), and RETR of anything but its own error texts', async () => {
    const a = await t.ftpAccount();
    const other = await t.ftpAccount();
    const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
    const intruder = await connectFtp(t.port, other.ftpUsername, other.liveKey);
    const testMode = await connectFtp(t.port, a.ftpUsername, a.testKey);
    try {
      await upload(client, 'kept.pdf', await makePdf('kept'));
      await upload(client, 'broken.pdf', Buffer.from('not a pdf at all'));
      // a received file is never deleted: DELE is taken as "about to be replaced" (WinSCP's sequence)
      expect((await client.remove('kept.pdf')).message).toMatch(/^250 kept\.pdf is about to be replaced: nothing was deleted/);
      expect((await client.list()).map((f) => f.name)).toContain('kept.pdf');
      expect(await ftpCode(client.remove('broken.pdf.error.txt'))).toBe(550);
      expect(await ftpCode(client.remove('missing.pdf'))).toBe(550);
      expect(await ftpCode(client.send('MKD sub'))).toBe(550);
      expect(await ftpCode(client.send('RMD sub'))).toBe(550);
      expect(await ftpCode(client.send('SITE CHMOD 777 kept.pdf'))).toBe(502);
      expect(await ftpCode(client.appendFrom(Readable.from([Buffer.from('x')]), 'kept.pdf'))).toBe(502);
      expect(await ftpCode(client.send('STOU'))).toBe(502);
      // uploaded PDFs are not served back
      expect(await ftpCode(download(client, 'kept.pdf'))).toBe(550);
      expect((await download(client, 'broken.pdf.error.txt')).toString()).toMatch(/not a PDF/);
      // another account, and the other mode, see none of it
      expect(await ftpCode(download(intruder, 'broken.pdf.error.txt'))).toBe(550);
      expect(await intruder.list()).toEqual([]);
      expect(await ftpCode(download(testMode, 'broken.pdf.error.txt'))).toBe(550);
      expect(await testMode.list()).toEqual([]);
    } finally {
      client.close();
      intruder.close();
      testMode.close();
    }
  });

  it('LIST shows recent uploads with their status, and a readable <name>.pdf.error.txt for each failed or waiting one', () =>
    freshSession(async (client, a) => {
      const inv = await t.invoice(a.liveKey);
      const good = await upload(client, `${inv.invoiceNumber}.pdf`, await makePdf('good'));
      await t.waitFor(a.liveKey, intakeIdOf(good.message));
      const bad = await upload(client, 'F-garbage.pdf', Buffer.from('%PDF-1.4 this is not really a PDF'));
      expect(await t.waitFor(a.liveKey, intakeIdOf(bad.message))).toMatchObject({ status: 'failed' });
      const waiting = await upload(client, 'F-not-yet.pdf', await makePdf('early'));
      await t.waitFor(a.liveKey, intakeIdOf(waiting.message), (r) => r.status === 'waiting');

      const listing = await client.list();
      const byName = Object.fromEntries(listing.map((f) => [f.name, f]));
      expect(byName[`${inv.invoiceNumber}.pdf`]).toMatchObject({ user: 'attached', group: 'live' });
      expect(byName['F-garbage.pdf']).toMatchObject({ user: 'failed' });
      expect(byName['F-not-yet.pdf']).toMatchObject({ user: 'waiting' });
      const errorFile = byName['F-garbage.pdf.error.txt'];
      expect(errorFile).toBeDefined();
      const text = (await download(client, 'F-garbage.pdf.error.txt')).toString('utf8');
      expect(text.length).toBe(errorFile.size);
      expect(text).toContain('File: F-garbage.pdf');
      expect(text).toMatch(/Reason: The PDF cannot be read/);
      expect(await client.size('F-garbage.pdf.error.txt')).toBe(errorFile.size);
      // a waiting file explains itself too (what it waits for, until when); an attached one has none
      expect(byName['F-not-yet.pdf.error.txt']).toMatchObject({ user: 'waiting' });
      expect((await download(client, 'F-not-yet.pdf.error.txt')).toString('utf8')).toMatch(
        /Status: waiting\r\nReason: Waiting for an invoice with id or number F-not-yet until /,
      );
      expect(
        Object.keys(byName)
          .filter((n) => n.endsWith('.error.txt'))
          .sort(),
      ).toEqual(['F-garbage.pdf.error.txt', 'F-not-yet.pdf.error.txt']);
    }));

  it('20 parallel uploads on 20 connections are all attached, each once', async () => {
    const a = await t.ftpAccount();
    const invoices = await Promise.all(Array.from({ length: 20 }, () => t.invoice(a.liveKey)));
    const pdfs = await Promise.all(invoices.map((inv) => makePdf(inv.invoiceNumber)));
    const ids = await Promise.all(
      invoices.map(async (inv, i) => {
        const client = await connectFtp(t.port, a.ftpUsername, a.liveKey);
        try {
          return intakeIdOf((await upload(client, `${inv.invoiceNumber}.pdf`, pdfs[i])).message);
        } finally {
          client.close();
        }
      }),
    );
    expect(new Set(ids).size).toBe(20);
    const done = await Promise.all(ids.map((id) => t.waitFor(a.liveKey, id)));
    expect(done.map((d) => d.status)).toEqual(Array(20).fill('attached'));
    expect(done.map((d) => d.invoice).sort()).toEqual(invoices.map((i) => i.id).sort());
    for (const inv of invoices) expect((await t.documentsOf(inv.id)).filter((d) => !d.deleted_at)).toHaveLength(1);
    expect(await t.imports(a.liveKey)).toHaveLength(20);
  });
});

describe('uploads over FTPS with curl -T --ssl-reqd', () => {
  it('uploads by invoice number and by id: attached', async () => {
    const [r1] = await expectCurlUploadsAttached(t, { tls: true });
    expect(r1.stderr).toMatch(/< 226 /);
    // the key went over TLS: AUTH TLS came before USER
    expect(r1.stderr.indexOf('> AUTH TLS')).toBeGreaterThan(-1);
    expect(r1.stderr.indexOf('> AUTH TLS')).toBeLessThan(r1.stderr.indexOf('> USER'));
  });

  it('oversize: curl fails on the 552 and nothing is staged; a traversal path is refused', async () => {
    const a = await t.ftpAccount();
    const big = path.join(t.dir, 'big.pdf');
    fs.writeFileSync(big, Buffer.concat([await makePdf('big'), Buffer.alloc(6 * 1024 * 1024, 0x20)]));
    const r = await curlUpload(t.port, a.ftpUsername, a.liveKey, big, 'big.pdf', { tls: true });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/< 552 /);
    const small = path.join(t.dir, 'small.pdf');
    fs.writeFileSync(small, await makePdf('small'));
    // curl turns a path into CWD, which the flat directory refuses; --ftp-method nocwd sends the path in STOR
    const cwd = await curlUpload(t.port, a.ftpUsername, a.liveKey, small, 'sub/x.pdf', { tls: true });
    expect(cwd.code).not.toBe(0);
    expect(cwd.stderr).toMatch(/< 550 /);
    const stor = await curlUpload(t.port, a.ftpUsername, a.liveKey, small, '..%2Fx.pdf', { tls: true, extra: ['--ftp-method', 'nocwd'] });
    expect(stor.code).not.toBe(0);
    expect(stor.stderr).toMatch(/< 553 /);
    expect(await t.imports(a.liveKey)).toEqual([]);
  });
});
