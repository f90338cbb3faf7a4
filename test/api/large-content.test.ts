// Documents of more than 48 KB in JSON or form bodies, sent by the clients people use, over real HTTP:
// PHP's json_encode (which writes every / of the Base64 as \/) and http_build_query, and Python's
// json with urllib; the bytes that come back are the bytes sent. Limits, refusals and
// Idempotency-Key replays are as for a small body.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTENT_CHARS } from '../../src/http/resources/documents/schema.ts';
import { createInvoice, makePdf } from '../helpers/fixtures.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';

const run = promisify(execFile);
let t: TestApp;
let acct: TestAccount;
let url: string;
let pdf: Buffer;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-large-content-'));

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  acct = await t.createAccount();
  pdf = await makePdf('Large content', 200_000);
  fs.writeFileSync(path.join(dir, 'large.pdf'), pdf);
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const contentOf = async (documentId: string) => (await t.request('GET', `/v2/documents/${documentId}/content`, { key: acct.liveKey })).raw;

describe('large documents in request bodies', () => {
  it("PHP's json_encode (Base64 with \\/ escapes) attaches the same bytes", async () => {
    const inv = await createInvoice(t, acct.liveKey);
    const php = `
      $body = json_encode(['Filename' => 'php.pdf', 'Mediatype' => 'application/pdf', 'Content' => base64_encode(file_get_contents($argv[1]))]);
      if (strpos($body, '\\\\/') === false) { fwrite(STDERR, "no escaped slash\\n"); exit(3); }
      $ctx = stream_context_create(['http' => ['method' => 'POST', 'ignore_errors' => true,
        'header' => "Content-Type: application/json\\r\\nAuthorization: Bearer $argv[3]\\r\\n", 'content' => $body]]);
      echo file_get_contents($argv[2], false, $ctx);`;
    const { stdout } = await run('php', ['-r', php, path.join(dir, 'large.pdf'), `${url}/v2/documents/${inv.id}`, acct.liveKey]);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ resource: 'document', invoice: inv.id, filename: 'php.pdf', size: pdf.length });
    expect((await contentOf(doc.id)).equals(pdf)).toBe(true);
  });

  it("PHP's http_build_query (form fields) attaches the same bytes", async () => {
    const inv = await createInvoice(t, acct.liveKey);
    const php = `
      $body = http_build_query(['filename' => 'form.pdf', 'mediatype' => 'application/pdf', 'content' => base64_encode(file_get_contents($argv[1]))]);
      $ctx = stream_context_create(['http' => ['method' => 'POST', 'ignore_errors' => true,
        'header' => "Content-Type: application/x-www-form-urlencoded\r\nAuthorization: Bearer $argv[3]\r\n", 'content' => $body]]);
      echo file_get_contents($argv[2], false, $ctx);`;
    const { stdout } = await run('php', ['-r', php, path.join(dir, 'large.pdf'), `${url}/v2/documents/${inv.id}`, acct.liveKey]);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({ resource: 'document', filename: 'form.pdf', size: pdf.length });
    expect((await contentOf(doc.id)).equals(pdf)).toBe(true);
  });

  it("Python's json and urllib hand in an import of the same bytes", async () => {
    const py = `
import base64, json, sys, urllib.request
body = json.dumps({"filename": "py.pdf", "content": base64.b64encode(open(sys.argv[1], "rb").read()).decode()}).encode()
req = urllib.request.Request(sys.argv[2], data=body, method="POST", headers={"Content-Type": "application/json", "Authorization": "Bearer " + sys.argv[3]})
print(urllib.request.urlopen(req).read().decode())`;
    const { stdout } = await run('python3', ['-c', py, path.join(dir, 'large.pdf'), `${url}/v2/imports`, acct.liveKey]);
    const record = JSON.parse(stdout);
    expect(record).toMatchObject({ resource: 'import', filename: 'py.pdf', size: pdf.length });
    const staged = await t.db.query<{ content_sha256: string }>('select content_sha256 from intake_staging where id = $1', [record.id]);
    expect((await t.c.store.get(staged[0].content_sha256)).equals(pdf)).toBe(true);
  });

  it('an Idempotency-Key replays the same large body and refuses another one under the same key', async () => {
    const inv = await createInvoice(t, acct.liveKey);
    const post = (content: string) =>
      t.request('POST', '/v2/documents', {
        key: acct.liveKey,
        headers: { 'idempotency-key': `large-${inv.id}` },
        body: { invoice: inv.id, filename: 'once.pdf', mediatype: 'application/pdf', content },
      });
    const first = await post(pdf.toString('base64'));
    expect(first.status).toBe(201);
    const again = await post(pdf.toString('base64'));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await makePdf('Other', 200_000);
    expect((await post(other.toString('base64'))).status).toBe(422);
  });

  it('content over the limit, and content that is not Base64, are refused as in a small body', async () => {
    const inv = await createInvoice(t, acct.liveKey);
    const post = (content: string) =>
      t.request('POST', `/v2/documents/${inv.id}`, { key: acct.liveKey, body: { filename: 'x.pdf', mediatype: 'application/pdf', content } });
    const over = await post('QUJD'.repeat(MAX_CONTENT_CHARS / 4 + 1));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ field: 'content', detail: `Field content is longer than ${MAX_CONTENT_CHARS} characters` });
    const junk = await post(`${pdf.toString('base64')}*`);
    expect(junk.status).toBe(400);
    expect(junk.body).toMatchObject({ status: 400, detail: 'Error in PDF file content', field: 'content' });
    const wrapped = await post(pdf.toString('base64').replace(/.{76}/g, '$&\r\n'));
    expect(wrapped.status).toBe(201);
    expect((await contentOf(wrapped.body.id)).equals(pdf)).toBe(true);
  });
});
