// The signed whole-object put (src/storage/s3-signed-put.ts) against a real S3 server (s3rver, its
// own process): it goes past the SDK's command stack, lands under its key with its bytes, maps S3's
// refusals to StoreUnavailableError by code and status only, ends on abort and deadline, and signs
// the body's SHA-256 (S3 refuses a body that does not match it).
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreLimitError, StoreUnavailableError } from '../../src/storage/document-store.ts';
import { s3Client, withDeadline, type S3Settings } from '../../src/storage/s3-calls.ts';
import { S3DocumentStore } from '../../src/storage/s3-document-store.ts';
import { SignedPut } from '../../src/storage/s3-signed-put.ts';
import { TimedStore } from '../../src/storage/timed-store.ts';
import { freePort } from '../../testkit/ports.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';

let s3: S3Server;
const closers: (() => unknown)[] = [];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function settings(over: Partial<S3Settings> = {}): S3Settings {
  return { endpoint: s3.endpoint, bucket: s3.bucket, prefix: `t-${randomUUID()}/`, region: 'us-east-1', forcePathStyle: true, timeoutMs: 5000, ...over };
}
function store(over: Partial<S3Settings> = {}): S3DocumentStore {
  const st = new S3DocumentStore(settings(over));
  closers.push(() => st.close());
  return st;
}
/** The bytes s3rver keeps for a key (it stores key K as the file K._S3rver_object), read past the driver. */
function storedBytes(key: string): Buffer | undefined {
  const file = path.join(s3.dir, s3.bucket, `${key}._S3rver_object`);
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bodySha256: string;
}

/** AWS's URI encoding (RFC 3986: only A-Z a-z 0-9 - . _ ~ left as they are). */
const awsEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * Checks a request's SigV4 signature as S3 does, written here from AWS's specification (not with
 * the SDK's signer): s3rver 3.7.1 checks the access key id only, never a V4 signature.
 */
function signatureValid(r: Seen, secret: string): boolean {
  const m = /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
    String(r.headers.authorization),
  );
  if (!m) return false;
  const [, day, region, service, signedHeaders, signature] = m as unknown as string[];
  const [rawPath, rawQuery = ''] = r.url.split('?') as [string, string?];
  const canonicalUri = rawPath
    .split('/')
    .map((seg) => awsEncode(decodeURIComponent(seg)))
    .join('/');
  const canonicalQuery = rawQuery
    .split('&')
    .filter(Boolean)
    .map((kv) => kv.split('=').map((x) => awsEncode(decodeURIComponent(x ?? ''))) as [string, string?])
    .sort(([a, x = ''], [b, y = '']) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v = '']) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-content-sha256')) return false;
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(r.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonical = [r.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, r.headers['x-amz-content-sha256']].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', r.headers['x-amz-date'], scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day!), region!), service!), 'aws4_request');
  return hmac(key, toSign).toString('hex') === signature;
}

const xmlError = (code: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>Refused by the test proxy for ${code}.</Message></Error>`;

/** What S3 does with a put whose body is not the signed x-amz-content-sha256 (s3rver 3.7.1 checks only the header's form). */
const checksBody = (r: Seen) =>
  r.method === 'PUT' && r.headers['x-amz-content-sha256'] !== r.bodySha256 ? { status: 400, xml: xmlError('XAmzContentSHA256Mismatch') } : undefined;

/**
 * A recording proxy in front of s3rver that refuses, as S3 would, a request whose SigV4 signature is
 * not valid for s3rver's secret (403 SignatureDoesNotMatch); `check` may answer instead of s3rver.
 */
async function proxy(
  check?: (r: Seen) => { status: number; xml: string; headers?: Record<string, string> } | undefined,
): Promise<{ endpoint: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const target = new URL(s3.endpoint);
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      const r = { method: req.method!, url: req.url!, headers: req.headers, bodySha256: sha(body) };
      seen.push(r);
      const own = signatureValid(r, S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY) ? check?.(r) : { status: 403, xml: xmlError('SignatureDoesNotMatch') };
      if (own) return void res.writeHead(own.status, { 'content-type': 'application/xml', ...own.headers }).end(own.xml);
      const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      out.end(body);
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  closers.push(() => server.close());
  return { endpoint: `http://127.0.0.1:${port}`, seen };
}

beforeAll(async () => {
  Object.assign(process.env, S3RVER_CREDENTIALS); // the SDK's default chain reads them
  s3 = await startS3Server();
});
afterAll(async () => {
  for (const close of closers) await close();
  await s3?.destroy();
});

describe('the signed whole-object put', () => {
  it('lands under its key (path-style, the prefix given without its slash) with its bytes, in one request past the SDK stack', async () => {
    const { endpoint, seen } = await proxy();
    const prefix = `signed ${randomUUID()}+(odd)`; // a space, '+' and parentheses: the key is encoded as S3 signs it
    const st = store({ endpoint, prefix });
    const bytes = randomBytes(100 * 1024);
    const put = await st.put(bytes, { maxBytes: 5_000_000 });
    expect(put).toEqual({ sha256: sha(bytes), size: bytes.length });
    const key = `${prefix}/sha256/${put.sha256.slice(0, 2)}/${put.sha256.slice(2, 4)}/${put.sha256}`;
    expect(st.keyOf(put.sha256)).toBe(key);
    expect(storedBytes(key)?.equals(bytes)).toBe(true);
    expect(seen).toHaveLength(1);
    const [r] = seen;
    expect([r!.method, decodeURIComponent(r!.url)]).toEqual(['PUT', `/${s3.bucket}/${key}`]); // path-style: the bucket in the path
    expect(r!.headers['x-amz-content-sha256']).toBe(put.sha256);
    expect(r!.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-content-sha256/); // the hash is signed: it cannot be swapped
    expect(r!.headers['amz-sdk-invocation-id']).toBeUndefined(); // the SDK's command stack adds it to every request it sends
    expect(await st.put(bytes, { maxBytes: 5_000_000 })).toEqual(put); // the same bytes again: the same object
    expect((await st.get(put.sha256)).equals(bytes)).toBe(true);
  });

  it('a wrong secret, an unknown key id or a missing bucket: StoreUnavailableError with the S3 code and status only', async () => {
    /** The put's error, with the process's credentials set to `env` while its store is made and used. */
    async function failed(env: Record<string, string>, over: Partial<S3Settings>): Promise<Error> {
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const e = await store(over)
          .put(randomBytes(1000), { maxBytes: 5000 })
          .then(
            () => undefined,
            (x: unknown) => x,
          );
        expect(e).toBeInstanceOf(StoreUnavailableError);
        return e as Error;
      } finally {
        Object.assign(process.env, saved);
      }
    }
    const text = (what: string) => `The document store is not available at the moment (S3 PutObject: ${what}); please retry shortly`;
    const { endpoint } = await proxy(); // it checks the signature as S3 does (s3rver does not)
    expect((await failed({ AWS_SECRET_ACCESS_KEY: 'not-the-secret' }, { endpoint })).message).toBe(text('SignatureDoesNotMatch (HTTP 403)'));
    expect((await failed({ AWS_ACCESS_KEY_ID: 'NOT-S3RVER' }, {})).message).toBe(text('InvalidAccessKeyId (HTTP 403)'));
    const e = await failed({}, { bucket: `missing-${randomUUID().slice(0, 8)}` });
    // S3's message ("The specified bucket does not exist") and the bucket's name stay out of a text that reaches clients
    expect(e.message).toBe(text('NoSuchBucket (HTTP 404)'));
    expect(String(e.cause)).not.toMatch(/missing-|specified bucket/);
  });

  it("a server that never answers: the deadline ends the put, the caller's abort ends it at once with its reason", async () => {
    const accepted: net.Socket[] = [];
    let closed = 0;
    const silent = net.createServer((socket) => {
      accepted.push(socket);
      socket.resume().on('close', () => closed++); // reads the request, answers nothing
    });
    const port = await freePort();
    await new Promise<void>((r) => silent.listen(port, '127.0.0.1', r));
    closers.push(() => silent.close());
    const t0 = Date.now();
    await expect(store({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 600 }).put(Buffer.from('x'), { maxBytes: 10 })).rejects.toThrow(
      /S3 PutObject: timed out after 600 ms/,
    );
    expect(Date.now() - t0).toBeLessThan(3000);
    await vi.waitFor(() => expect(closed).toBe(accepted.length)); // the request was destroyed, not left open

    const ac = new AbortController();
    const before = accepted.length;
    const put = store({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 60_000 }).put(Buffer.from('y'), { maxBytes: 10, signal: ac.signal });
    await vi.waitFor(() => expect(accepted.length).toBe(before + 1));
    ac.abort(new Error('client went away'));
    await expect(put).rejects.toThrow('client went away');
    await vi.waitFor(() => expect(closed).toBe(accepted.length));
  });

  it("under TimedStore (as the service opens it) a put with its SHA-256 known is the driver's one call, ended at the shorter deadline, its request destroyed", async () => {
    const accepted: net.Socket[] = [];
    let closed = 0;
    const silent = net.createServer((socket) => {
      accepted.push(socket);
      socket.resume().on('close', () => closed++);
    });
    const port = await freePort();
    await new Promise<void>((r) => silent.listen(port, '127.0.0.1', r));
    closers.push(() => silent.close());
    const timed = new TimedStore(store({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 60_000 }), 500);
    const bytes = Buffer.from('x');
    const t0 = Date.now();
    const known = timed.put(bytes, { maxBytes: 10, knownSha256: sha(bytes) });
    await expect(known).rejects.toThrow(StoreUnavailableError);
    await expect(known).rejects.toThrow(/S3 PutObject: timed out after 500 ms/); // the driver's deadline, at TimedStore's time
    expect(Date.now() - t0).toBeLessThan(3000);
    await vi.waitFor(() => expect(closed).toBe(accepted.length));
    // bytes to hash first: TimedStore's own deadline, as for every other driver
    await expect(timed.put(Buffer.from('y'), { maxBytes: 10 })).rejects.toThrow(/put: no answer within 500 ms/);
    await vi.waitFor(() => expect(closed).toBe(accepted.length));
  });

  it('the SHA-256 is the one signed: a body that does not match it is refused (XAmzContentSHA256Mismatch) and nothing is stored', async () => {
    const { endpoint, seen } = await proxy(checksBody);
    const s = settings({ endpoint });
    const client = s3Client(s);
    closers.push(() => client.destroy());
    const signed = new SignedPut(client, s.bucket);
    const body = randomBytes(2000);
    const other = sha(randomBytes(2000));
    const key = `${s.prefix}sha256/${other.slice(0, 2)}/${other.slice(2, 4)}/${other}`;
    const e = await withDeadline('PutObject', { timeoutMs: 5000 }, (c) => signed.put(key, body, other, c.signal)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreUnavailableError);
    expect((e as Error).message).toContain('(S3 PutObject: XAmzContentSHA256Mismatch (HTTP 400))');
    expect(seen).toHaveLength(1); // a client error is not tried again
    expect(storedBytes(key)).toBeUndefined();
    // the right hash through the same proxy: stored
    const right = sha(body);
    const goodKey = `${s.prefix}sha256/${right.slice(0, 2)}/${right.slice(2, 4)}/${right}`;
    await withDeadline('PutObject', { timeoutMs: 5000 }, (c) => signed.put(goodKey, body, right, c.signal));
    expect(storedBytes(goodKey)?.equals(body)).toBe(true);
    // the SDK's PutObject (where the signed put does not apply) signs the known hash it is given too
    const sdkPut = (sha256: string) =>
      withDeadline('PutObject', { timeoutMs: 5000, payloadSha256: sha256 }, (c) =>
        client.send(c.own(new PutObjectCommand({ Bucket: s.bucket, Key: `${s.prefix}sdk`, Body: body, ContentLength: body.length }))),
      );
    await expect(sdkPut(other)).rejects.toThrow('XAmzContentSHA256Mismatch (HTTP 400)');
    await sdkPut(right);
    expect(seen.filter((r) => r.url.split('?')[0]!.endsWith('/sdk')).map((r) => r.headers['x-amz-content-sha256'])).toEqual([other, right]);
    expect(storedBytes(`${s.prefix}sdk`)?.equals(body)).toBe(true);
  });

  it("a Buffer with its known SHA-256 (the intake's) goes to that key as it is, not hashed again: S3 refuses it when the hash is not the body's", async () => {
    const { endpoint, seen } = await proxy(checksBody);
    const st = store({ endpoint });
    const bytes = randomBytes(100 * 1024);
    const right = sha(bytes);
    expect(await st.put(bytes, { maxBytes: bytes.length, knownSha256: right })).toEqual({ sha256: right, size: bytes.length });
    expect(storedBytes(st.keyOf(right))?.equals(bytes)).toBe(true);
    expect(seen.map((r) => r.headers['x-amz-content-sha256'])).toEqual([right]);
    // a hash the driver took as given (it hashed nothing itself): signed, refused by S3, nothing kept
    const wrong = sha(randomBytes(16));
    const e = await st.put(bytes, { maxBytes: bytes.length, knownSha256: wrong }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreUnavailableError);
    expect((e as Error).message).toContain('(S3 PutObject: XAmzContentSHA256Mismatch (HTTP 400))');
    expect(storedBytes(st.keyOf(wrong))).toBeUndefined();
    // past the limit, or not a SHA-256: refused before any request
    await expect(st.put(bytes, { maxBytes: bytes.length - 1, knownSha256: right })).rejects.toBeInstanceOf(StoreLimitError);
    await expect(st.put(bytes, { maxBytes: bytes.length, knownSha256: right.toUpperCase() })).rejects.toMatchObject({ kind: 'invalid' });
    expect(seen).toHaveLength(2);
  });

  it("a 503 is tried again (the SDK's standard retries), then succeeds", async () => {
    let refused = 0;
    const { endpoint, seen } = await proxy((r) => (r.method === 'PUT' && refused++ < 2 ? { status: 503, xml: xmlError('SlowDown') } : undefined));
    const st = store({ endpoint });
    const bytes = randomBytes(3000);
    const put = await st.put(bytes, { maxBytes: 5000 });
    expect(seen.filter((r) => r.method === 'PUT')).toHaveLength(3);
    expect(storedBytes(st.keyOf(put.sha256))?.equals(bytes)).toBe(true);
  });

  it('a server clock an hour ahead: RequestTimeTooSkewed, the offset taken from its Date, signed again and stored', async () => {
    const ahead = 3_600_000;
    const amzDate = (v: unknown) => Date.parse(String(v).replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    const { endpoint, seen } = await proxy((r) => {
      const serverNow = Date.now() + ahead;
      const headers = { date: new Date(serverNow).toUTCString() };
      // S3 allows 15 minutes; the proxy answers the put itself (s3rver's clock is ours)
      if (Math.abs(amzDate(r.headers['x-amz-date']) - serverNow) > 900_000) return { status: 403, xml: xmlError('RequestTimeTooSkewed'), headers };
      return { status: 200, xml: '', headers };
    });
    const st = store({ endpoint });
    await st.put(randomBytes(3000), { maxBytes: 5000 });
    expect(seen).toHaveLength(2);
    expect(amzDate(seen[1]!.headers['x-amz-date']) - amzDate(seen[0]!.headers['x-amz-date'])).toBeGreaterThan(ahead - 60_000);
    await st.put(randomBytes(3000), { maxBytes: 5000 }); // the offset is kept: signed right the first time
    expect(seen).toHaveLength(3);
  });
});
