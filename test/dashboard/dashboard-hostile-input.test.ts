// The dashboard against hostile input and hostile files, in a real Chromium session: the drop
// zone's upload with a malformed X-Filename answers 400 in the spec's error body (never 500), and
// every response carrying a file's bytes is a sandboxed, never-sniffed download (or, for the
// preview image, inline and sandboxed).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { validInvoice } from '../helpers/error-body.ts';
import { startDashboardApp, type DashboardApp } from './dashboard-harness.ts';

let d: DashboardApp;
let acct: Awaited<ReturnType<DashboardApp['account']>>;
let p: Page;
let pdf: Buffer;

beforeAll(async () => {
  d = await startDashboardApp();
  acct = await d.account();
  pdf = await makePdf('hostile input');
  p = await (await d.browser.newContext()).newPage();
  await d.signIn(p, await d.person(acct.id, p));
});
afterAll(() => d?.close());

/** the drop zone's request, sent from the signed-in page with its CSRF token */
const upload = (name: string | null) =>
  p.evaluate(
    async ([name, bytes]) => {
      const headers: Record<string, string> = { 'content-type': 'application/pdf', 'x-csrf-token': document.body.dataset.csrf ?? '' };
      if (name !== null) headers['x-filename'] = name;
      const res = await fetch('/dashboard/upload', { method: 'POST', headers, body: new Uint8Array(bytes) });
      return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
    },
    [name, [...pdf]] as const,
  );

describe('the drop zone’s X-Filename', () => {
  it('a malformed name is a 400 in the spec’s error body naming the header', async () => {
    const cases: [string | null, RegExp][] = [
      [null, /is required/],
      ['', /is required/],
      ['%20%20', /is required/],
      ['%', /not valid percent-encoded/],
      ['%zz.pdf', /not valid percent-encoded/],
      ['%E0%A4%A.pdf', /not valid percent-encoded/],
      ['%ED%A0%80.pdf', /not valid percent-encoded/],
      ['%C0%AF.pdf', /not valid percent-encoded/],
      ['a%00b.pdf', /control characters/],
      ['a%0Ab.pdf', /control characters/],
      ['a%0D%0Ab.pdf', /control characters/],
      ['x%7F.pdf', /control characters/],
      ['x%C2%85.pdf', /control characters/],
      ['tab\t.pdf', /must be percent-encoded/],
      ['..%2Fx.pdf', /path separators/],
      ['a%5Cb.pdf', /path separators/],
      ['C:%5Cx.pdf', /path separators/],
      ['..', /path separators/],
      ['%2E%2E', /path separators/],
      [`${'a'.repeat(247)}.pdf`, /longer than 250 characters/],
      [encodeURIComponent(`${'ü'.repeat(247)}.pdf`), /longer than 250 characters/],
      ['Rechnung-\u00e9.pdf', /must be percent-encoded/],
    ];
    for (const [name, detail] of cases) {
      const res = await upload(name);
      expect(res.status, `${name} -> ${res.status} ${res.body}`).toBe(400);
      expect(res.type, String(name)).toMatch(/^application\/hal\+json/);
      const body = JSON.parse(res.body);
      expect(Object.keys(body).sort(), String(name)).toEqual(['detail', 'field', 'status', 'title']);
      expect(body, String(name)).toMatchObject({ status: 400, title: 'Bad Request', field: 'X-Filename', detail: expect.stringMatching(detail) });
    }
    // nothing was received from them
    expect((await d.api('GET', '/v2/imports', { auth: acct.liveKey })).body.count).toBe(0);
  });

  it('a good name, as the page encodes it, is received (250 characters at most, Unicode kept)', async () => {
    for (const name of ['Rechnung März 2026 – Müller.pdf', `${'ü'.repeat(246)}.pdf`, '100% sure.pdf']) {
      const res = await upload(await p.evaluate((n) => encodeURIComponent(n), name));
      expect(res.status, `${name} -> ${res.body}`).toBe(202);
      const got = await d.api('GET', `/v2/imports/${JSON.parse(res.body).id}`, { auth: acct.liveKey });
      expect(got.body.filename).toBe(name);
    }
  });
});

describe('file responses', () => {
  it('downloads, the CSV export and the preview are never sniffed and sandboxed; downloads say attachment', async () => {
    const customer = await d.api('POST', '/v2/customers', { auth: acct.liveKey, body: { customerCode: 'HOSTILE-1', name: 'Hostile' } });
    const invoice = await d.api('POST', '/v2/invoices', { auth: acct.liveKey, body: validInvoice(customer.body.id) });
    expect(
      (
        await d.api('POST', `/v2/documents/${invoice.body.id}`, {
          auth: acct.liveKey,
          body: { Filename: '<script>.pdf', Mediatype: 'application/pdf', Content: pdf.toString('base64') },
        })
      ).status,
    ).toBe(201);
    const received = await upload('scan.pdf');
    const fileId = JSON.parse(received.body).id;

    const get = async (url: string) => {
      const res = await p.request.get(`${d.url}${url}`);
      return { status: res.status(), headers: res.headers() };
    };
    for (const [url, type, disposition] of [
      [`/dashboard/files/${fileId}/download`, /^application\/pdf/, /^attachment; filename="scan\.pdf"/],
      ['/dashboard/files.csv', /^text\/csv/, /^attachment; filename="received-files\.csv"/],
      [`/dashboard/invoices/${invoice.body.id}/preview.png`, /^image\/png/, /^inline; /],
    ] as const) {
      const res = await get(url);
      expect(res.status, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(type);
      expect(res.headers['content-disposition'], url).toMatch(disposition);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['content-security-policy'], url).toMatch(/default-src 'none'; sandbox/);
    }
    // the API's document, as a browser would fetch it
    const api = await p.request.get(`${d.url}/v2/documents/${invoice.body.id}/content`, { headers: { authorization: `Bearer ${acct.liveKey}` } });
    expect(api.status()).toBe(200);
    expect(api.headers()).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-disposition': expect.stringMatching(/^attachment; filename="<script>\.pdf"/),
      'content-security-policy': expect.stringMatching(/sandbox/),
    });
  });
});
