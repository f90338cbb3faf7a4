import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/api-test.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';

const it = apiTest
  .extend('pdf', { scope: 'file' }, () => makePdf('Invoice 1'))
  .extend(
    'upload',
    ({ t, key }) =>
      (invoiceId: string, bytes: Buffer, filename = 'invoice.pdf') =>
        t.request('POST', `/v2/documents/${invoiceId}`, { key, body: { Filename: filename, Mediatype: 'application/pdf', Content: bytes.toString('base64') } }),
  );

it.beforeAll(async ({ t }) => void t); // the service starts under the hook timeout, not in the first test

describe('documents', () => {
  it('attaches a PDF by POST /v2/documents/{invoice_id}; the invoice shows the file name; the bytes come back', async ({ t, key, pdf, upload }) => {
    const inv = await createInvoice(t, key);
    const res = await upload(inv.id, pdf, 'F-2026-001.pdf');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body).toMatchObject({
      resource: 'document',
      invoice: inv.id,
      filename: 'F-2026-001.pdf',
      mediatype: 'application/pdf',
      size: pdf.length,
      source: 'api',
    });
    expect(res.body.id).toMatch(/^doc_/);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.document).toBe('F-2026-001.pdf');

    const meta = await t.request('GET', `/v2/documents/${res.body.id}`, { key });
    expect(meta.status).toBe(200);
    expect(meta.body).toEqual(res.body);
    const byInvoice = await t.request('GET', `/v2/documents/${inv.id}`, { key });
    expect(byInvoice.body.id).toBe(res.body.id);

    const content = await t.request('GET', res.body._links.content.href.replace(/^https?:\/\/[^/]+/, ''), { key });
    expect(content.status).toBe(200);
    expect(content.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(content.raw, pdf)).toBe(0);
    expect(String(content.headers['content-disposition'])).toContain('F-2026-001.pdf');
    // never rendered by a browser as this origin's page: a download, not sniffed, sandboxed
    expect(content.headers['x-content-type-options']).toBe('nosniff');
    expect(String(content.headers['content-disposition'])).toMatch(/^attachment; filename="F-2026-001\.pdf"/);
    expect(content.headers['content-security-policy']).toMatch(/\bsandbox\b/);
    expect(content.headers['content-security-policy']).toMatch(/default-src 'none'/);
  });

  it('attaches by POST /v2/documents with Invoice in the body, also form-encoded', async ({ t, key, pdf }) => {
    const inv = await createInvoice(t, key);
    const res = await t.request('POST', '/v2/documents', {
      key,
      form: { Invoice: inv.id, Filename: 'formpost.pdf', Mediatype: 'application/pdf', Content: pdf.toString('base64') },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ resource: 'document', invoice: inv.id, filename: 'formpost.pdf' });
    const content = await t.request('GET', `/v2/documents/${inv.id}/content`, { key });
    expect(Buffer.compare(content.raw, pdf)).toBe(0);
  });

  it('accepts Base64 with line breaks as mail clients write it', async ({ t, key, pdf }) => {
    const inv = await createInvoice(t, key);
    const wrapped = pdf.toString('base64').replace(/.{76}/g, '$&\r\n');
    const res = await t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'wrapped.pdf', mediatype: 'application/pdf', content: wrapped } });
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(pdf.length);
  });

  it('a new file replaces the document; the same bytes again change nothing', async ({ t, key, pdf, upload }) => {
    const inv = await createInvoice(t, key);
    const first = await upload(inv.id, pdf, 'first.pdf');
    const again = await upload(inv.id, pdf, 'first.pdf');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const other = await makePdf('Invoice 1, corrected');
    const second = await upload(inv.id, other, 'second.pdf');
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.document).toBe('second.pdf');
    expect(Buffer.compare((await t.request('GET', `/v2/documents/${inv.id}/content`, { key })).raw, other)).toBe(0);
    expect((await t.request('GET', `/v2/documents/${first.body.id}`, { key })).status).toBe(410);
  });

  it('eight different files for one invoice at once: all succeed, one of them is its live document', async ({ t, key, upload }) => {
    const inv = await createInvoice(t, key);
    const files = await Promise.all(Array.from({ length: 8 }, (_, i) => makePdf(`Invoice 1, version ${i}`)));
    const results = await Promise.all(files.map((f, i) => upload(inv.id, f, `v${i}.pdf`)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const live = await Promise.all(results.map(async (r) => (await t.request('GET', `/v2/documents/${r.body.id}`, { key })).status));
    expect(live.filter((s) => s === 200)).toHaveLength(1);
    expect(live.filter((s) => s === 410)).toHaveLength(7);
    const current = await t.request('GET', `/v2/documents/${inv.id}`, { key });
    expect(results.map((r) => r.body.id)).toContain(current.body.id);
    expect(live[results.findIndex((r) => r.body.id === current.body.id)]).toBe(200);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.document).toBe(current.body.filename);
  });

  it('400 Error in PDF file content for anything that is not a readable PDF', async ({ t, key, pdf }) => {
    const inv = await createInvoice(t, key);
    const truncated = pdf.subarray(0, Math.floor(pdf.length / 3));
    const cases: [string, string][] = [
      ['text', Buffer.from('just some text, not a pdf').toString('base64')],
      ['png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64')],
      ['header only', Buffer.from('%PDF-1.7\n').toString('base64')],
      ['truncated', truncated.toString('base64')],
      ['garbage after header', Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 0xab)]).toString('base64')],
      ['not base64', 'this is *not* base64!'],
      ['base64 with a bad length', 'QUJDRA=x'],
      ['empty', ''],
    ];
    for (const [name, content] of cases) {
      const res = await t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'bad.pdf', mediatype: 'application/pdf', content } });
      expect(res.status, name).toBe(400);
      expect(res.body, name).toMatchObject({ status: 400, detail: 'Error in PDF file content', field: 'content' });
    }
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.document).toBeNull();
  });

  it('content: a PDF close to 5 MB is accepted, 5242881 characters are refused naming the field', async ({ t, key }) => {
    const inv = await createInvoice(t, key);
    const big = await makePdf('Big', 3_880_000);
    const b64 = big.toString('base64');
    expect(b64.length).toBeGreaterThan(5_100_000);
    expect(b64.length).toBeLessThanOrEqual(5_242_880);
    const ok = await t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'big.pdf', mediatype: 'application/pdf', content: b64 } });
    expect(ok.status).toBe(201);
    expect(ok.body.size).toBe(big.length);
    const tooLong = b64 + 'A'.repeat(5_242_881 - b64.length);
    const refused = await t.request('POST', `/v2/documents/${inv.id}`, { key, body: { filename: 'big.pdf', mediatype: 'application/pdf', content: tooLong } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ detail: 'Field content is longer than 5242880 characters', field: 'content' });
  });

  it('file names: must end in .pdf, no paths; unicode names survive', async ({ t, key, pdf, upload }) => {
    const inv = await createInvoice(t, key);
    for (const filename of ['invoice.txt', '../../etc/passwd.pdf', 'a/b.pdf', '', '.pdf']) {
      const res = await upload(inv.id, pdf, filename);
      expect(res.status, filename).toBe(400);
      expect(res.body.field, filename).toBe('filename');
    }
    const res = await upload(inv.id, pdf, 'Rechnung März 2026 – Müller.PDF');
    expect(res.status).toBe(201);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key })).body.document).toBe('Rechnung März 2026 – Müller.PDF');
    const content = await t.request('GET', `/v2/documents/${res.body.id}/content`, { key });
    expect(String(content.headers['content-disposition'])).toContain(`filename*=UTF-8''${encodeURIComponent('Rechnung März 2026 – Müller.PDF')}`);
  });

  it('deletes by document id and by invoice id (204); the invoice no longer shows a document', async ({ t, key, pdf, upload }) => {
    const a = await createInvoice(t, key);
    const docA = await upload(a.id, pdf, 'a.pdf');
    const delA = await t.request('DELETE', `/v2/documents/${docA.body.id}`, { key });
    expect(delA.status).toBe(204);
    expect(delA.raw.length).toBe(0);
    expect((await t.request('GET', `/v2/invoices/${a.id}`, { key })).body.document).toBeNull();
    expect((await t.request('GET', `/v2/documents/${docA.body.id}`, { key })).status).toBe(410);
    expect((await t.request('GET', `/v2/documents/${docA.body.id}/content`, { key })).status).toBe(410);

    const b = await createInvoice(t, key);
    await upload(b.id, pdf, 'b.pdf');
    expect((await t.request('DELETE', `/v2/documents/${b.id}`, { key })).status).toBe(204);
    expect((await t.request('GET', `/v2/invoices/${b.id}`, { key })).body.document).toBeNull();
    const none = await t.request('DELETE', `/v2/documents/${b.id}`, { key });
    expect(none.status).toBe(404);
    expect(none.body.detail).toBe(`No document exists with id ${b.id}.`);
    // a new upload after the delete attaches again
    expect((await upload(b.id, pdf, 'b2.pdf')).status).toBe(201);
  });

  it('documents of another account or mode are not found', async ({ t, acct, key, pdf, upload }) => {
    const inv = await createInvoice(t, key);
    const doc = await upload(inv.id, pdf);
    const other = await t.createAccount();
    for (const k of [other.liveKey, acct.testKey]) {
      expect((await t.request('GET', `/v2/documents/${doc.body.id}`, { key: k })).status).toBe(404);
      expect((await t.request('GET', `/v2/documents/${doc.body.id}/content`, { key: k })).status).toBe(404);
      expect((await t.request('DELETE', `/v2/documents/${doc.body.id}`, { key: k })).status).toBe(404);
      const attach = await t.request('POST', `/v2/documents/${inv.id}`, {
        key: k,
        body: { filename: 'x.pdf', mediatype: 'application/pdf', content: pdf.toString('base64') },
      });
      expect(attach.status).toBe(404);
      expect(attach.body.detail).toBe(`No invoice exists with id ${inv.id}.`);
    }
    expect((await t.request('GET', `/v2/documents/${doc.body.id}`, { key })).status).toBe(200);
  });
});
