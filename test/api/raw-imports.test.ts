// POST /v2/imports with the file itself as the body (issue 46), sent by curl as a process over real
// HTTP: a PDF or a ZIP archive with its name in X-Filename, the same record, key rules and
// Idempotency-Key as the JSON form; a missing or malformed name 400 with field X-Filename, other
// types 415, a body over its cap 413 (declared, or found while it streams), nothing recorded. The
// JSON form is as it was (its own tests elsewhere; here its other JSON types and form fields).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/fixtures.ts';
import { expectError } from '../helpers/error-body.ts';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.ts';
import { makeZip, pdfsNamed } from '../helpers/zip-archives.ts';

const run = promisify(execFile);
const MB = 1024 * 1024;
const ZIP_CAP = 8 * MB;
let t: TestApp;
let acct: TestAccount;
let url: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-raw-imports-'));

beforeAll(async () => {
  t = await startTestApp({ config: { zipMaxTotalBytes: ZIP_CAP } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  acct = await t.createAccount();
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Reply = { status: number; body: any; headers: Record<string, string>; raw: Buffer };

/** curl POST /v2/imports of a file as the raw body (or whatever `args` make of it); the answer, parsed. */
async function curl(args: string[], key: string | undefined = acct.liveKey): Promise<Reply> {
  const headerFile = path.join(dir, `h-${Math.random().toString(36).slice(2)}`);
  const auth = key ? ['-H', `Authorization: Bearer ${key}`] : [];
  const { stdout } = await run('curl', ['-sS', '-D', headerFile, '-w', '\n%{http_code}', ...auth, ...args, `${url}/v2/imports`], { maxBuffer: 1 << 24 });
  const lines = stdout.split('\n');
  const status = Number(lines.pop());
  const headers = Object.fromEntries(
    fs
      .readFileSync(headerFile, 'latin1')
      .split('\r\n')
      .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1].toLowerCase(), m[2]]),
  );
  const text = lines.join('\n');
  return { status, body: text ? JSON.parse(text) : undefined, headers, raw: Buffer.from(text) };
}

/** `bytes` written to a file and sent raw: curl --data-binary @file with these headers. */
function raw(bytes: Buffer, type: string, name: string | undefined, extra: string[] = [], key?: string): Promise<Reply> {
  const file = path.join(dir, `body-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, bytes);
  const named = name === undefined ? [] : ['-H', `X-Filename: ${name}`];
  return curl(['--data-binary', `@${file}`, '-H', `Content-Type: ${type}`, ...named, ...extra], key);
}

const recordsOf = async (key = acct.liveKey) => (await t.request('GET', '/v2/imports?limit=250', { key })).body.imports as any[];
const stagedBytes = async (id: string) => {
  const rows = await t.db.query<{ content_sha256: string }>('select content_sha256 from intake_staging where id = $1', [id]);
  return t.c.store.get(rows[0].content_sha256);
};
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('POST /v2/imports, the raw form', () => {
  it('a PDF as the body (application/pdf, a percent-encoded name): 202 with the record, the same bytes staged', async () => {
    const pdf = await makePdf('Raw PDF', 300_000);
    const res = await raw(pdf, 'application/pdf', encodeURIComponent('Rechnung März 2026.pdf'));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.headers['content-type']).toMatch(/^application\/hal\+json/);
    expect(res.body).toMatchObject({
      resource: 'import',
      channel: 'http',
      sender: `api:${acct.id}`,
      filename: 'Rechnung März 2026.pdf',
      size: pdf.length,
      sha256: sha256(pdf),
      status: 'received',
      uploadKey: null,
    });
    expect((await stagedBytes(res.body.id)).equals(pdf)).toBe(true);
  });

  it('a ZIP archive as the body (application/zip): unpacked, each PDF in it an import of its own', async () => {
    const files = await pdfsNamed('RAWZ-', 3, 50_000);
    const zip = await makeZip(files);
    const res = await raw(zip, 'application/zip', 'day.zip');
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ filename: 'day.zip', status: 'unpacked', size: zip.length });
    const inside = (await recordsOf()).filter((r) => r.archive === res.body.id);
    expect(inside.map((r) => r.filename).sort()).toEqual(files.map((f) => f.name).sort());
  });

  it('application/octet-stream and application/x-zip-compressed are the raw form too; the name says what the file is', async () => {
    const pdf = await makePdf('Octet stream');
    const asPdf = await raw(pdf, 'application/octet-stream', 'octet.pdf');
    expect(asPdf.status).toBe(202);
    expect(asPdf.body).toMatchObject({ filename: 'octet.pdf', status: 'received', size: pdf.length });
    const zip = await makeZip(await pdfsNamed('RAWX-', 2));
    const asZip = await raw(zip, 'application/x-zip-compressed', 'windows.zip');
    expect(asZip.status).toBe(202);
    expect(asZip.body).toMatchObject({ filename: 'windows.zip', status: 'unpacked' });
  });

  it('X-Filename missing, not percent-encoded or with a path: 400 with field X-Filename, nothing recorded', async () => {
    const pdf = await makePdf('No name');
    const before = (await recordsOf()).length;
    expectError(await raw(pdf, 'application/pdf', undefined), 400, /^Header X-Filename is required/, 'X-Filename');
    expectError(await raw(pdf, 'application/pdf', 'bad%E0%A4%A.pdf'), 400, /^Header X-Filename is not valid percent-encoded UTF-8/, 'X-Filename');
    expectError(await raw(pdf, 'application/pdf', 'a%2Fb.pdf'), 400, /without path separators/, 'X-Filename');
    expect((await recordsOf()).length).toBe(before);
  });

  it('a body over its cap: 413 in the spec body, declared (Content-Length) or found while it streams (chunked); nothing kept', async () => {
    const objects = async () => {
      let n = 0;
      for await (const _ of t.c.store.list()) n++;
      return n;
    };
    const before = { records: (await recordsOf()).length, objects: await objects() };
    const big = Buffer.concat([await makePdf('Too big'), Buffer.alloc(6 * MB, 1)]);
    const pdfCap = /^big\.pdf is larger than 5242880 bytes \(5 MB\), the most a file other than a ZIP archive may be: refused, nothing was kept$/;
    expectError(await raw(big, 'application/pdf', 'big.pdf'), 413, pdfCap);
    expectError(await raw(big, 'application/pdf', 'big.pdf', ['-H', 'Transfer-Encoding: chunked']), 413, pdfCap);
    const zipCap = /^huge\.zip is larger than 8388608 bytes \(8 MB\), the most a ZIP archive \(ZIP_MAX_TOTAL_BYTES\) may be/;
    const huge = Buffer.alloc(ZIP_CAP + MB, 2);
    expectError(await raw(huge, 'application/zip', 'huge.zip', ['-H', 'Transfer-Encoding: chunked']), 413, zipCap);
    expect({ records: (await recordsOf()).length, objects: await objects() }).toEqual(before);
    // a body within the cap still goes through on the same service
    expect((await raw(await makePdf('After'), 'application/pdf', 'after.pdf')).status).toBe(202);
  });

  it('another Content-Type: 415 naming both forms (text/plain, multipart form data)', async () => {
    const pdf = await makePdf('Wrong type');
    const both = /^Send the file itself as application\/pdf, application\/zip, .* with its name in X-Filename, or JSON/;
    expectError(await raw(pdf, 'text/plain', 'x.pdf'), 415, both);
    const file = path.join(dir, 'form.pdf');
    fs.writeFileSync(file, pdf);
    expectError(await curl(['-F', `file=@${file}`]), 415, both);
  });

  it('no key: 401; an upload key hands a raw file in, its record names the key, and that key lists it', async () => {
    const pdf = await makePdf('Upload key');
    expectError(await raw(pdf, 'application/pdf', 'nokey.pdf', [], ''), 401);
    const made = await t.request('POST', '/v2/account/upload-keys', { key: acct.liveKey, body: { name: 'Scanner', networks: ['127.0.0.1/32'] } });
    expect(made.status).toBe(201);
    const res = await raw(pdf, 'application/pdf', 'scanner.pdf', [], made.body.key);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ filename: 'scanner.pdf', uploadKey: made.body.id });
    expect((await recordsOf(made.body.key)).map((r) => r.id)).toEqual([res.body.id]);
  });

  it('Idempotency-Key: the same file again replays the 202; other bytes under the same key are 422', async () => {
    const pdf = await makePdf('Once', 100_000);
    const key = ['-H', `Idempotency-Key: raw-${Date.now()}`];
    const first = await raw(pdf, 'application/pdf', 'once.pdf', key);
    expect(first.status).toBe(202);
    const again = await raw(pdf, 'application/pdf', 'once.pdf', key);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await recordsOf()).filter((r) => r.filename === 'once.pdf')).toHaveLength(1);
    expectError(await raw(await makePdf('Other'), 'application/pdf', 'once.pdf', key), 422, undefined, 'Idempotency-Key');
  });

  it('the OpenAPI document describes both bodies, the X-Filename header and the 413', async () => {
    const op = (await t.request('GET', '/v2/openapi.json')).body.paths['/v2/imports'].post;
    const content = op.requestBody.content;
    expect(Object.keys(content).sort()).toEqual(
      [
        'application/json',
        'application/octet-stream',
        'application/pdf',
        'application/x-www-form-urlencoded',
        'application/x-zip-compressed',
        'application/zip',
      ].sort(),
    );
    expect(content['application/json'].schema).toMatchObject({ type: 'object', required: ['filename', 'content'] });
    expect(content['application/zip'].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(op.parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'x-filename', required: false }));
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['202', '400', '413', '415']));
  });

  it('the JSON form as before: another JSON type and field case, form fields; a body without content is 400 with field', async () => {
    const pdf = await makePdf('JSON form');
    const json = (type: string, body: string) => curl(['--data-binary', body, '-H', `Content-Type: ${type}`]);
    const hal = await json('application/hal+json', JSON.stringify({ Filename: 'hal.pdf', Content: pdf.toString('base64') }));
    expect(hal.status, JSON.stringify(hal.body)).toBe(202);
    expect(hal.body).toMatchObject({ filename: 'hal.pdf', size: pdf.length });
    expectError(await json('application/vnd.example+json', JSON.stringify({ filename: 'x.pdf' })), 400, 'Field content is required', 'content');
    expectError(await json('application/json', '[]'), 400, 'The request body must be a JSON object or form-encoded fields');
    const form = await curl(['--data-urlencode', 'filename=form.pdf', '--data-urlencode', `content=${pdf.toString('base64')}`]);
    expect(form.status, JSON.stringify(form.body)).toBe(202);
    expect(form.body).toMatchObject({ filename: 'form.pdf', size: pdf.length });
  });
});
