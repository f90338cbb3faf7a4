// The intake pipeline end to end on PostgreSQL and the shared Redis (private prefix): files in,
// matched by id or number, checked, attached through the documents code path. Scoping, the
// imports API and the test data purge are in imports-api.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { until } from '../../testkit/wait.ts';
import { startIntakeApp, type IntakeApp } from './intake-harness.ts';
import { MATCHING_CONFIG, matchingCalls } from './matching-calls.ts';

let t: IntakeApp;
let acct: Awaited<ReturnType<IntakeApp['account']>>;
let seq = 0;

beforeAll(async () => {
  t = await startIntakeApp({ config: MATCHING_CONFIG });
  acct = await t.account();
});
afterAll(() => t?.close());

const { invoice, upload, stagedBytes, contentOf, documentsOf } = matchingCalls(() => t);

describe('matching', () => {
  it('attaches a file named <invoice_id>.pdf to that invoice', async () => {
    const inv = await invoice(acct.liveKey);
    const rec = await upload(acct.liveKey, `${inv.id}.pdf`, await makePdf('by id'));
    expect(rec).toMatchObject({ resource: 'import', channel: 'http', status: 'received', filename: `${inv.id}.pdf` });
    const done = await t.waitFor(acct.liveKey, rec.id);
    expect(done).toMatchObject({ status: 'attached', invoice: inv.id, reason: null });
    expect(done.document).toMatch(/^doc_/);
    expect(done.attachedAt).not.toBeNull();
    const after = await t.request('GET', `/v2/invoices/${inv.id}`, { key: acct.liveKey });
    expect(after.body.document).toBe(`${inv.id}.pdf`);
    const docs = await documentsOf(inv.id);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ id: done.document, source: 'http' });
  });

  it('attaches a file named <invoice_number>.pdf, whatever the case of the extension and the number', async () => {
    const a = await invoice(acct.liveKey, `INV-Case-${seq++}`);
    const b = await invoice(acct.liveKey, `INV-Ext-${seq++}`);
    const ra = await upload(acct.liveKey, `${a.invoiceNumber.toLowerCase()}.PDF`, await makePdf('case'));
    const rb = await upload(acct.liveKey, `${b.invoiceNumber}.Pdf`, await makePdf('ext'));
    expect(await t.waitFor(acct.liveKey, ra.id)).toMatchObject({ status: 'attached', invoice: a.id });
    expect(await t.waitFor(acct.liveKey, rb.id)).toMatchObject({ status: 'attached', invoice: b.id });
  });

  it('an exact number wins over numbers that differ only in case; a case-only match among several is not guessed', async () => {
    const n = `Inv-Dup-${seq++}`;
    const upper = await invoice(acct.liveKey, n.toUpperCase());
    const lower = await invoice(acct.liveKey, n.toLowerCase());
    const exact = await upload(acct.liveKey, `${n.toUpperCase()}.pdf`, await makePdf('exact'));
    const exactLower = await upload(acct.liveKey, `${n.toLowerCase()}.pdf`, await makePdf('exact lower'));
    const neither = await upload(acct.liveKey, `${n}.pdf`, await makePdf('neither'));
    expect(await t.waitFor(acct.liveKey, exact.id)).toMatchObject({ status: 'attached', invoice: upper.id, matchedBy: 'invoice_number' });
    expect(await t.waitFor(acct.liveKey, exactLower.id)).toMatchObject({ status: 'attached', invoice: lower.id, matchedBy: 'invoice_number' });
    const failed = await t.waitFor(acct.liveKey, neither.id);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toContain(upper.invoiceNumber);
    expect(failed.reason).toContain(lower.invoiceNumber);
  });

  it('matches names in either Unicode normal form (NFC)', async () => {
    const composed = `Fact-caf\u00e9-${seq++}`; // é as one code point
    const inv = await invoice(acct.liveKey, composed);
    const decomposed = composed.normalize('NFD'); // e + combining accent, as macOS file systems write it
    expect(decomposed).not.toBe(composed);
    const rec = await upload(acct.liveKey, `${decomposed}.pdf`, await makePdf('nfc'));
    expect(await t.waitFor(acct.liveKey, rec.id)).toMatchObject({ status: 'attached', invoice: inv.id });
  });

  it("prefers the invoice id over an invoice number that happens to equal another invoice's id", async () => {
    const target = await invoice(acct.liveKey);
    await invoice(acct.liveKey, target.id); // an invoice whose number is the other one's id
    const rec = await upload(acct.liveKey, `${target.id}.pdf`, await makePdf('id first'));
    expect(await t.waitFor(acct.liveKey, rec.id)).toMatchObject({ status: 'attached', invoice: target.id });
  });

  it('attaches a file whose invoice is created later within seconds (woken, not at its next backoff tick)', async () => {
    const number = `LATE-${Date.now().toString(36)}`;
    const seen: string[] = [];
    t.svc.container.events.on('intakeStatus', (e) => {
      if (e.channel === 'http' && e.scope.accountId === acct.id) seen.push(`${e.intakeId}:${e.status}`);
    });
    const rec = await upload(acct.liveKey, `${number}.pdf`, await makePdf('late'));
    const waiting = await t.waitFor(acct.liveKey, rec.id, (r) => r.status === 'waiting');
    expect(waiting.status).toBe('waiting');
    expect(waiting.reason).toMatch(new RegExp(`^Waiting for an invoice with id or number ${number} until `));
    // marked waiting just before its job goes back to the delayed set
    await until(async () => (await (await t.svc.container.jobs.bullQueue('intake').getJob(rec.id))!.getState()) === 'delayed', 10_000, 'the delayed job');
    const inv = await invoice(acct.liveKey, number);
    // the next backoff tick is five minutes away: within a minute can only be the wake-up
    const done = await t.waitFor(acct.liveKey, rec.id, undefined, 60_000);
    expect(done).toMatchObject({ status: 'attached', invoice: inv.id });
    // each status change is announced once (metrics, feedback)
    expect(seen.filter((s) => s.startsWith(rec.id))).toEqual(['received', 'waiting', 'attached'].map((st) => `${rec.id}:${st}`));
  });
});

describe('documents', () => {
  it('attaches the same bytes twice only once', async () => {
    const inv = await invoice(acct.liveKey);
    const pdf = await makePdf('twice');
    const first = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, pdf)).id);
    const second = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.id}.pdf`, pdf)).id);
    expect(first.status).toBe('attached');
    expect(second).toMatchObject({ status: 'attached', document: first.document, reason: 'The invoice already had this exact file; nothing changed' });
    expect(await documentsOf(inv.id)).toHaveLength(1);
    // the document shares the first file's staged bytes; the second file's are dropped
    expect(await stagedBytes(first.id, second.id)).toEqual({ [first.id]: true, [second.id]: false });
    expect(Buffer.compare(await contentOf(acct.liveKey, inv.id), pdf)).toBe(0);
  });

  it("replaces the invoice's document with a different file", async () => {
    const inv = await invoice(acct.liveKey);
    const v2 = await makePdf('v2 corrected');
    const first = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, await makePdf('v1'))).id);
    const second = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, v2)).id);
    expect(second.status).toBe('attached');
    expect(second.document).not.toBe(first.document);
    const docs = await documentsOf(inv.id);
    expect(docs.map((d) => ({ id: d.id, live: d.deleted_at === null }))).toEqual([
      { id: first.document, live: false },
      { id: second.document, live: true },
    ]);
    const current = await t.request('GET', `/v2/documents/${inv.id}`, { key: acct.liveKey });
    expect(current.body.id).toBe(second.document);
    // the replaced document's bytes are freed with it
    expect(await stagedBytes(first.id, second.id)).toEqual({ [first.id]: false, [second.id]: true });
    expect(Buffer.compare(await contentOf(acct.liveKey, inv.id), v2)).toBe(0);
  });

  it('an API upload replaces an imported document and frees its staged bytes; deleting a document frees the bytes it shared', async () => {
    const inv = await invoice(acct.liveKey);
    const imported = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, await makePdf('by import'))).id);
    const direct = await makePdf('by the API');
    const res = await t.request('POST', `/v2/documents/${inv.id}`, {
      key: acct.liveKey,
      body: { Filename: 'api.pdf', Mediatype: 'application/pdf', Content: direct.toString('base64') },
    });
    expect(res.status).toBe(201);
    expect(await stagedBytes(imported.id)).toEqual({ [imported.id]: false });
    expect(Buffer.compare(await contentOf(acct.liveKey, inv.id), direct)).toBe(0);

    const again = await t.waitFor(acct.liveKey, (await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, await makePdf('imported again'))).id);
    expect(await stagedBytes(again.id)).toEqual({ [again.id]: true });
    expect((await t.request('DELETE', `/v2/documents/${inv.id}`, { key: acct.liveKey })).status).toBe(204);
    expect(await stagedBytes(again.id)).toEqual({ [again.id]: false });
    expect((await t.request('GET', `/v2/documents/${again.document}/content`, { key: acct.liveKey })).status).toBe(410);
  });
});

describe('permanent problems fail at once and are never retried', () => {
  it.each([
    ['empty', () => Buffer.alloc(0), 'The file is empty; send it again'],
    ['not a PDF', () => Buffer.from('Dear customer, here is your invoice.'), 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file'],
    [
      'oversized',
      async () => Buffer.concat([await makePdf('big'), Buffer.alloc(5 * 1024 * 1024, 0x20)]),
      'The file is larger than 5242880 bytes; send a smaller PDF (scanned at a lower resolution, or compressed)',
    ],
  ])('%s: failed on receipt, no job', async (_name, make, reason) => {
    const inv = await invoice(acct.liveKey);
    const bytes = await make();
    const { svc } = t;
    const rec = await svc.intake.receive({ scope: acct.live, channel: 'ftp', sender: 'tester', filename: `${inv.invoiceNumber}.pdf`, bytes });
    expect(rec).toMatchObject({ status: 'failed', reason });
    expect(await svc.container.jobs.bullQueue('intake').getJob(rec.id)).toBeUndefined();
    expect(await documentsOf(inv.id)).toHaveLength(0);
  });

  it('corrupt PDF with an existing invoice: failed after one attempt, job kept as failed', async () => {
    const inv = await invoice(acct.liveKey);
    const good = await makePdf('corrupt');
    const corrupt = Buffer.concat([good.subarray(0, 20), Buffer.alloc(3000, 0x41)]);
    const rec = await upload(acct.liveKey, `${inv.invoiceNumber}.pdf`, corrupt);
    const done = await t.waitFor(acct.liveKey, rec.id);
    expect(done.status).toBe('failed');
    expect(done.reason).toMatch(/^The PDF cannot be read/);
    const job = await t.svc.container.jobs.bullQueue('intake').getJob(rec.id);
    expect(await job!.getState()).toBe('failed');
    expect(job!.attemptsMade).toBe(1);
    expect(job!.failedReason).toBe(done.reason);
    expect(await documentsOf(inv.id)).toHaveLength(0);
  });

  it('corrupt PDF without an invoice: fails at once instead of waiting for one', async () => {
    const rec = await upload(acct.liveKey, `NOPE-${seq++}.pdf`, Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0x42)]));
    const done = await t.waitFor(acct.liveKey, rec.id);
    expect(done.status).toBe('failed');
    expect(done.reason).toMatch(/^The PDF cannot be read/);
  });

  it('a file named after a deleted invoice fails with that reason', async () => {
    const inv = await invoice(acct.liveKey);
    expect((await t.request('DELETE', `/v2/invoices/${inv.id}`, { key: acct.liveKey })).status).toBe(204);
    const rec = await upload(acct.liveKey, `${inv.id}.pdf`, await makePdf('deleted'));
    expect(await t.waitFor(acct.liveKey, rec.id)).toMatchObject({ status: 'failed', reason: `The invoice ${inv.id} was deleted` });
  });

  it.each([['../x.pdf'], ['dir/F-1.pdf'], ['C:\\x\\F-1.pdf'], ['.pdf']])('bad name %j', async (name) => {
    const rec = await upload(acct.liveKey, name, await makePdf('name'));
    expect(rec.status).toBe('failed');
    expect(rec.reason).toMatch(/path parts|no invoice id or number/);
  });
});
