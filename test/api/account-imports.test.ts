// GET /v2/account and the import actions (retry, attach, discard): answers, error bodies,
// scoping by account and mode, OpenAPI. No workers run here: records stay as the test sets them.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSelfSignedCert, selfSignedCertPath } from '../../src/channels/ftp/self-signed-cert.ts';
import { loadHostKeys } from '../../src/channels/sftp/host-keys.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { intakeReason } from '../../src/domain/intake-reasons.ts';

let t: TestApp;
let a: TestAccount;
let other: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  t = await startTestApp({ config: { ftpPort: 2121, ftpsImplicitPort: 990 } });
  a = await t.createAccount();
  other = await t.createAccount();
  pdf = await makePdf('import actions');
});
afterAll(() => t?.close());

const hand = async (key: string, filename: string, bytes = pdf) => {
  const res = await t.request('POST', '/v2/imports', { key, body: { filename, content: bytes.toString('base64') } });
  expect(res.status).toBe(202);
  return res.body;
};
const scope = (acct: TestAccount, mode: 'live' | 'test' = 'live') => ({ accountId: acct.id, mode });

describe('GET /v2/account', () => {
  it("shows the account, the mode, FTP details with the certificate fingerprint and that mode's import address, never a key", async () => {
    const pems = await makeSelfSignedCert({ commonName: 'dash-test', days: 1 });
    const file = selfSignedCertPath(t.config.dataDir);
    fs.mkdirSync(file.replace(/cert\.pem$/, ''), { recursive: true });
    fs.writeFileSync(file, pems.cert);
    const admin = (await t.request('GET', `/admin/accounts/${a.id}`, { headers: { authorization: `Bearer ${t.adminToken}` } })).body;
    for (const mode of ['live', 'test'] as const) {
      const res = await t.request('GET', '/v2/account', { key: mode === 'live' ? a.liveKey : a.testKey, headers: { host: 'files.example.net' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        resource: 'account',
        id: a.id,
        name: a.name,
        mode,
        importAddress: admin.importAddresses[mode],
        ftp: {
          host: 'files.example.net',
          port: 2121,
          username: admin.ftpUsername,
          password: `Your ${mode} API key`,
          tls: 'required',
          implicitFtpsPort: 990,
          certificateSha256: new X509Certificate(pems.cert).fingerprint256,
        },
        sftp: {
          host: 'files.example.net',
          port: t.config.sftpPort,
          username: admin.ftpUsername,
          password: `Your ${mode} API key, or an SSH key registered for ${mode} mode`,
          hostKeys: loadHostKeys({ dataDir: t.config.dataDir }).fingerprints,
        },
      });
      expect(res.body.sftp.hostKeys.map((k: { type: string }) => k.type)).toEqual(['ssh-ed25519', 'ssh-rsa']);
      expect(JSON.stringify(res.body)).not.toContain(a.liveKey.slice(5, 20));
      expect(JSON.stringify(res.body)).not.toContain(a.testKey.slice(5, 20));
    }
  });

  it("answers 401 with the spec's body without a key", async () => {
    const res = await t.request('GET', '/v2/account');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 401, title: 'Unauthorized' });
  });
});

describe('import actions', () => {
  it('attach: a received file goes to the invoice named by id or number; the invoice shows the document', async () => {
    const inv = await createInvoice(t, a.liveKey);
    const imp = await hand(a.liveKey, 'scan-0001.pdf');
    const res = await t.request('POST', `/v2/imports/${imp.id}/attach`, { key: a.liveKey, body: { Invoice: inv.invoiceNumber } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: imp.id, status: 'attached', invoice: inv.id, reason: `Assigned by hand to invoice ${inv.invoiceNumber}` });
    expect(res.body.document).toMatch(/^doc_/);
    expect((await t.request('GET', `/v2/invoices/${inv.id}`, { key: a.liveKey })).body.document).toBe('scan-0001.pdf');
    const again = await t.request('POST', `/v2/imports/${imp.id}/attach`, { key: a.liveKey, body: { invoice: inv.id } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, title: 'Conflict' });
  });

  it('attach: an unknown invoice is 404 naming the field; a missing field is 400', async () => {
    const imp = await hand(a.liveKey, 'nothing.pdf');
    const res = await t.request('POST', `/v2/imports/${imp.id}/attach`, { key: a.liveKey, body: { Invoice: 'F-DOES-NOT-EXIST' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, title: 'Not Found', detail: 'No invoice exists with id or number F-DOES-NOT-EXIST.', field: 'invoice' });
    const missing = await t.request('POST', `/v2/imports/${imp.id}/attach`, { key: a.liveKey, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('invoice');
  });

  it('retry: a failed file is received again; a refused one (no content) is 409', async () => {
    const imp = await hand(a.liveKey, 'later.pdf');
    await t.c.intakeRepos.intake.markFailed(t.db, scope(a), imp.id, intakeReason('no_invoice', { awaits: { name: 'later', einvoiceNumbers: [] } }));
    const res = await t.request('POST', `/v2/imports/${imp.id}/retry`, { key: a.liveKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: imp.id, status: 'received', reason: null });
    const refused = await hand(a.liveKey, 'not-a-pdf.pdf', Buffer.from('hello'));
    expect(refused.status).toBe('failed');
    const no = await t.request('POST', `/v2/imports/${refused.id}/retry`, { key: a.liveKey });
    expect(no.status).toBe(409);
    expect(no.body.detail).toContain('cannot be retried');
  });

  it('discard: 204, gone from the list, 410 afterwards; an attached file is 409', async () => {
    const imp = await hand(a.liveKey, 'junk.pdf');
    const res = await t.request('DELETE', `/v2/imports/${imp.id}`, { key: a.liveKey });
    expect(res.status).toBe(204);
    expect((await t.request('GET', `/v2/imports/${imp.id}`, { key: a.liveKey })).status).toBe(410);
    for (const action of ['retry', 'attach']) {
      expect((await t.request('POST', `/v2/imports/${imp.id}/${action}`, { key: a.liveKey, body: { invoice: 'x' } })).status).toBe(410);
    }
    expect((await t.request('DELETE', `/v2/imports/${imp.id}`, { key: a.liveKey })).status).toBe(410);
    const list = await t.request('GET', '/v2/imports?limit=250', { key: a.liveKey });
    expect(list.body.imports.map((r: { id: string }) => r.id)).not.toContain(imp.id);

    const inv = await createInvoice(t, a.liveKey);
    const kept = await hand(a.liveKey, 'kept.pdf');
    await t.request('POST', `/v2/imports/${kept.id}/attach`, { key: a.liveKey, body: { invoice: inv.id } });
    const refused = await t.request('DELETE', `/v2/imports/${kept.id}`, { key: a.liveKey });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('DELETE /v2/documents/');
  });

  it("another account's import, or the other mode's, is 404 on every action", async () => {
    const imp = await hand(a.liveKey, 'private.pdf');
    const inv = await createInvoice(t, other.liveKey);
    for (const key of [other.liveKey, a.testKey]) {
      for (const [method, url, body] of [
        ['POST', 'retry', undefined],
        ['POST', 'attach', { invoice: inv.id }],
        ['DELETE', '', undefined],
      ] as const) {
        const res = await t.request(method, `/v2/imports/${imp.id}${url ? `/${url}` : ''}`, { key, body });
        expect(res.status, `${method} ${url} with another scope`).toBe(404);
        expect(res.body).toMatchObject({ status: 404, title: 'Not Found', detail: `No import exists with id ${imp.id}.` });
      }
    }
    // an invoice of another account cannot be the target either
    const target = await t.request('POST', `/v2/imports/${imp.id}/attach`, { key: a.liveKey, body: { invoice: inv.id } });
    expect(target.status).toBe(404);
    expect(target.body.field).toBe('invoice');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/v2/openapi.json')).body;
    expect(Object.keys(doc.paths['/v2/imports/{import_id}/retry'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/v2/imports/{import_id}/attach'])).toEqual(['post']);
    expect(doc.paths['/v2/imports/{import_id}'].delete.responses).toHaveProperty('204');
    expect(doc.paths['/v2/account'].get.responses['200']).toBeDefined();
  });
});
