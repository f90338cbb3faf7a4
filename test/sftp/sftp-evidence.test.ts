// The matching rules (docs/matching.md) over SFTP with OpenSSH's sftp -b: a phone's name against a
// short invoice number waits, the whole number with other separators attaches, a CAdES .pdf.p7m
// is unwrapped, an XML e-invoice is attached as the PDF rendered from it. The decision is every
// channel's; this proves SFTP hands the files over as they came.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { SAMPLES, sampleXml } from '../helpers/xml-einvoices.ts';
import { sftpTestFile, sftpWithPassword } from './sftp-harness.ts';

const setup = sftpTestFile();
const CMS = path.join(import.meta.dirname, '../fixtures/mail/cms');

describe('matching over SFTP', () => {
  it("IMG_0123.pdf is refused at once (a camera's name, nothing inside), RE_2024_0816.pdf attaches to RE/2024/0816, RE-2024-0848.pdf.p7m attaches the PDF inside, xrechnung.xml its rendition", async () => {
    const { app, dir } = setup;
    const account = await app.ftpAccount();
    await app.invoice(account.liveKey, '0123');
    const slashed = await app.invoice(account.liveKey, 'RE/2024/0816');
    const signed = await app.invoice(account.liveKey, 'RE-2024-0848');
    const xrechnung = await app.invoice(account.liveKey, SAMPLES[0].number);
    expect(
      (await app.request('PATCH', `/v2/invoices/${xrechnung.id}`, { key: account.liveKey, body: { invoiceTotal: '1405.66', invoiceBalance: '1405.66' } }))
        .status,
    ).toBe(200);
    const files = {
      'IMG_0123.pdf': await makePdf('phone'),
      'RE_2024_0816.pdf': await makePdf('separators'),
      'RE-2024-0848.pdf.p7m': fs.readFileSync(path.join(CMS, 'signed.der')),
      'xrechnung.xml': Buffer.from(sampleXml(SAMPLES[0])),
    };
    for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), bytes);
    const batch = path.join(dir, 'evidence.batch');
    fs.writeFileSync(
      batch,
      Object.keys(files)
        .map((n) => `put ${path.join(dir, n)}\n`)
        .join(''),
    );
    const res = await sftpWithPassword({ port: app.sftpPort, user: account.ftpUsername, password: account.liveKey, batch });
    expect(res.code, res.stderr).toBe(0);
    let byName: Record<string, any> = {};
    await expect
      .poll(
        async () => {
          byName = Object.fromEntries((await app.imports(account.liveKey)).map((r: any) => [r.filename, r]));
          return Object.keys(files).every((n) => byName[n] && byName[n].status !== 'received');
        },
        { timeout: 45_000 },
      )
      .toBe(true);
    expect(byName['IMG_0123.pdf']).toMatchObject({ channel: 'sftp', status: 'failed', invoice: null, reasonCode: 'device_name_nothing_inside' });
    expect(byName['RE_2024_0816.pdf']).toMatchObject({ status: 'attached', invoice: slashed.id, matchedBy: 'name_token' });
    expect(byName['RE-2024-0848.pdf.p7m']).toMatchObject({ status: 'attached', invoice: signed.id, matchedBy: 'invoice_number' });
    expect((await app.documentsOf(signed.id))[0].filename).toBe('RE-2024-0848.pdf');
    expect(byName['xrechnung.xml']).toMatchObject({ status: 'attached', invoice: xrechnung.id, matchedBy: 'einvoice' });
  });
});
