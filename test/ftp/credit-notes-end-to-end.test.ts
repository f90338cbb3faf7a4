// Credit notes and damaged PDFs end to end (issue 42): real negative-total e-invoices of the corpus
// (../shared/corpora, read at run time) attach over HTTP (POST /v2/imports) and FTPS (curl) to
// invoices with their negative totals; against a positive total the refusal says the sign; a damaged
// PDF gets the "damaged" words, never pdf-lib's message.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';
import { pdfWithBrokenPageTree } from '../helpers/fixtures.ts';
import { curlUpload } from './ftp-clients.ts';
import { ftpTestFile } from './ftp-harness.ts';

const t = ftpTestFile();
const EINV = path.resolve(ROOT, '../shared/corpora/pdf-matching/einv');
if (!fs.existsSync(EINV)) throw new Error(`the corpus is missing: ${EINV} (docs/matching.md, "Measuring with real inputs")`);
const corpus = (file: string) => fs.readFileSync(path.join(EINV, file));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const DAMAGED = 'The PDF cannot be read: it is damaged or incomplete; save or export it again from the program that made it and send the new file';

type Channel = 'http' | 'ftps';
/** Sends `bytes` as `name` by the channel and returns its record once it has settled. */
async function send(channel: Channel, a: { liveKey: string; ftpUsername: string }, name: string, bytes: Buffer) {
  if (channel === 'http') {
    const res = await t.request('POST', '/v2/imports', { key: a.liveKey, body: { Filename: name, Content: bytes.toString('base64') } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
  } else {
    const file = path.join(t.dir, `${sha(bytes).slice(0, 12)}.bin`);
    fs.writeFileSync(file, bytes);
    const res = await curlUpload(t.port, a.ftpUsername, a.liveKey, file, encodeURIComponent(name), { tls: true });
    expect(res.code, res.stderr).toBe(0);
  }
  let rec: any;
  await expect
    .poll(async () => (rec = (await t.imports(a.liveKey)).find((r: any) => r.filename === name))?.status, { timeout: 45_000 })
    .toMatch(/attached|failed|waiting/);
  return rec;
}

/** An invoice of the account with this number and (negative) total. */
async function invoiceOf(key: string, number: string, total: string) {
  const inv = await t.invoice(key, number);
  const res = await t.request('PATCH', `/v2/invoices/${inv.id}`, { key, body: { invoiceTotal: total, invoiceBalance: total } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe.each<Channel>(['http', 'ftps'])('credit notes over %s', (channel) => {
  it('a real credit note (type 381, 233.47) and a correction (384, -8.79) attach to invoices of -233.47 and -8.79 by their e-invoices', async () => {
    const a = await t.ftpAccount();
    const credit = await invoiceOf(a.liveKey, 'AV-2017-0005', '-233.47');
    const corrected = await invoiceOf(a.liveKey, 'RK21012345', '-8.79');
    await invoiceOf(a.liveKey, 'FA-2017-0010', '671.15'); // the invoice the credit note corrects (BT-25): never its target
    expect(await send(channel, a, 'scan_0001.pdf', corpus('p134_Avoir_FR_type381_MINIMUM.pdf'))).toMatchObject({
      status: 'attached',
      invoice: credit.id,
      matchedBy: 'einvoice',
    });
    expect(await send(channel, a, 'IMG_0002.pdf', corpus('p272_BASIC_Rechnungskorrektur.pdf'))).toMatchObject({
      status: 'attached',
      invoice: corrected.id,
      matchedBy: 'einvoice',
    });
    const read = await t.request('GET', `/v2/invoices/${credit.id}`, { key: a.liveKey });
    expect(read.body).toMatchObject({ invoiceTotal: '-233.47', document: 'scan_0001.pdf' });
  });

  it('against an invoice of the positive total the refusal says the sign and what to set, never "correct the total" alone', async () => {
    const a = await t.ftpAccount();
    const inv = await invoiceOf(a.liveKey, 'AV-2017-0005', '233.47');
    const rec = await send(channel, a, 'scan_0003.pdf', corpus('p134_Avoir_FR_type381_MINIMUM.pdf'));
    expect(rec).toMatchObject({ status: 'failed', invoice: null });
    expect(rec.reason).toBe(
      "The e-invoice is credit note AV-2017-0005 of -233.47 EUR, but the invoice's total is 233.47; a credit note is an invoice with a negative total: set the invoice's total to -233.47 EUR, or send the file of invoice AV-2017-0005",
    );
    expect(await t.documentsOf(inv.id)).toEqual([]);
  });

  it('a damaged PDF named after its invoice fails with the damaged words', async () => {
    const a = await t.ftpAccount();
    const inv = await t.invoice(a.liveKey);
    const rec = await send(channel, a, `${inv.invoiceNumber}.pdf`, pdfWithBrokenPageTree());
    expect(rec).toMatchObject({ status: 'failed', reason: DAMAGED });
    expect(rec.reason).not.toMatch(/traverse|_this/);
  });
});
