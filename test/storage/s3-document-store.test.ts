// The S3 driver against a real S3 server (s3rver, its own process on loopback): what only this
// driver does — single PutObject for small files, multipart to a temporary key and a copy for
// large ones, leftovers swept, time-outs and a killed server as StoreUnavailableError.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreLimitError, StoreMissingError, StoreUnavailableError } from '../../src/storage/document-store.ts';
import { S3DocumentStore } from '../../src/storage/s3-document-store.ts';
import { freePort } from '../../testkit/ports.ts';
import { S3RVER_CREDENTIALS, startS3Server, type S3Server } from '../../testkit/s3-server.ts';

let s3: S3Server;
const stores: S3DocumentStore[] = [];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function store(over: { endpoint?: string; timeoutMs?: number; prefix?: string } = {}): S3DocumentStore {
  const st = new S3DocumentStore({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    prefix: `t-${randomUUID()}/`,
    region: 'us-east-1',
    forcePathStyle: true,
    timeoutMs: 5000,
    ...over,
  });
  stores.push(st);
  return st;
}

/** The keys of every object s3rver keeps in the bucket under `prefix` (it stores key K as the file K._S3rver_object). */
function filesUnder(prefix: string): string[] {
  const root = path.join(s3.dir, s3.bucket);
  const all = fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]) : [];
  return all.filter((f) => f.startsWith(prefix) && f.endsWith('._S3rver_object')).map((f) => f.slice(0, -'._S3rver_object'.length));
}

async function* chunks(b: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

beforeAll(async () => {
  Object.assign(process.env, S3RVER_CREDENTIALS); // the SDK's default chain reads them
  s3 = await startS3Server();
});
afterAll(async () => {
  for (const st of stores) st.close();
  await s3?.destroy();
});

describe('S3 document store', () => {
  it('a small file goes to its SHA-256 key in one request; the same bytes again are the same object', async () => {
    const st = store();
    const bytes = randomBytes(100 * 1024);
    const put = await st.put(chunks(bytes, 16 * 1024), { maxBytes: 5_000_000 });
    expect(put).toEqual({ sha256: sha(bytes), size: bytes.length });
    expect(st.keyOf(put.sha256)).toMatch(new RegExp(`sha256/${put.sha256.slice(0, 2)}/${put.sha256.slice(2, 4)}/${put.sha256}$`));
    expect(await st.put(bytes, { maxBytes: 5_000_000 })).toEqual(put);
    expect((await st.get(put.sha256)).equals(bytes)).toBe(true);
    const listed = [];
    for await (const o of st.list()) listed.push(o);
    expect(listed.map((o) => [o.sha256, o.size])).toEqual([[put.sha256, bytes.length]]);
  });

  it('a file larger than a part is uploaded in parts to a temporary key, copied to its SHA-256 key, the temporary one deleted', async () => {
    const prefix = `t-${randomUUID()}/`;
    const st = store({ prefix });
    const bytes = randomBytes(11 * 1024 * 1024 + 123); // three parts
    const put = await st.put(chunks(bytes, 64 * 1024), { maxBytes: 20 * 1024 * 1024 });
    expect(put).toEqual({ sha256: sha(bytes), size: bytes.length });
    let streamed = 0;
    const h = createHash('sha256');
    for await (const c of await st.stream(put.sha256)) h.update(c), (streamed += c.length);
    expect([h.digest('hex'), streamed]).toEqual([put.sha256, bytes.length]);
    expect(filesUnder(prefix)).toEqual([st.keyOf(put.sha256)]); // the temporary object is gone
  });

  it('past the limit while streaming: StoreLimitError, and neither an object nor a temporary one stays', async () => {
    const prefix = `t-${randomUUID()}/`;
    const st = store({ prefix });
    const small = randomBytes(6000);
    await expect(st.put(chunks(small, 1000), { maxBytes: 5000 })).rejects.toBeInstanceOf(StoreLimitError);
    const large = randomBytes(8 * 1024 * 1024);
    let read = 0;
    async function* counted() {
      for await (const c of chunks(large, 256 * 1024)) (read += c.length), yield c;
    }
    await expect(st.put(counted(), { maxBytes: 6 * 1024 * 1024 })).rejects.toBeInstanceOf(StoreLimitError);
    expect(read).toBeLessThanOrEqual(6 * 1024 * 1024 + 256 * 1024); // it stopped reading at the limit
    expect(filesUnder(prefix)).toEqual([]);
  });

  it('missing objects: get and stream give StoreMissingError, has false, delete is fine', async () => {
    const st = store();
    const none = sha(randomBytes(10));
    await expect(st.get(none)).rejects.toBeInstanceOf(StoreMissingError);
    await expect(st.stream(none)).rejects.toBeInstanceOf(StoreMissingError);
    expect(await st.has(none)).toBe(false);
    await st.delete(none);
  });

  it('list pages past 1000 keys in SHA-256 order, from `after`, and only objects older than `olderThan`', async () => {
    const st = store();
    const shas: string[] = [];
    for (let i = 0; i < 1005; i += 15) {
      const batch = await Promise.all(Array.from({ length: 15 }, (_, j) => st.put(Buffer.from(`object ${i + j}`), { maxBytes: 100 })));
      shas.push(...batch.map((b) => b.sha256));
    }
    shas.sort();
    const all: string[] = [];
    for await (const o of st.list()) all.push(o.sha256);
    expect(all).toEqual(shas);
    const tail: string[] = [];
    for await (const o of st.list({ after: shas[500] })) tail.push(o.sha256);
    expect(tail).toEqual(shas.slice(501));
    let older = 0;
    for await (const _ of st.list({ olderThan: new Date(Date.now() - 3_600_000) })) older++;
    expect(older).toBe(0);
  });

  it('removeLeftovers deletes temporary objects past the grace, not newer ones', async () => {
    const prefix = `t-${randomUUID()}/`;
    const st = store({ prefix });
    // a temporary object as a crash between upload and copy leaves it
    fs.mkdirSync(path.join(s3.dir, s3.bucket, prefix, 'tmp'), { recursive: true });
    const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
    const raw = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true });
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}tmp/${randomUUID()}`, Body: 'cut off' }));
    raw.destroy();
    expect(await st.removeLeftovers(new Date(Date.now() - 60_000))).toBe(0);
    expect(await st.removeLeftovers(new Date(Date.now() + 1000))).toBe(1);
    expect(filesUnder(prefix)).toEqual([]);
  });

  it('a server that accepts and never answers: StoreUnavailableError within the time-out', async () => {
    const port = await freePort();
    const silent = net.createServer(() => {}); // holds every connection, says nothing
    await new Promise<void>((r) => silent.listen(port, '127.0.0.1', r));
    try {
      const st = store({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 800 });
      const t0 = Date.now();
      await expect(st.put(Buffer.from('x'), { maxBytes: 10 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(st.get(sha(Buffer.from('x')))).rejects.toThrow(/timed out after 800 ms/);
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      silent.close();
    }
  });

  it('killed: StoreUnavailableError; restarted on the same port and folder: the objects are back', async () => {
    const st = store({ timeoutMs: 2000 });
    const put = await st.put(Buffer.from('kept across a restart'), { maxBytes: 100 });
    await s3.kill();
    await expect(st.put(Buffer.from('during the outage'), { maxBytes: 100 })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(st.get(put.sha256)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(st.has(put.sha256)).rejects.toBeInstanceOf(StoreUnavailableError);
    await s3.start();
    expect((await st.get(put.sha256)).toString()).toBe('kept across a restart');
  });

  it("the caller's abort reaches the connection: a call to a server that never answers ends at once, its socket closed", async () => {
    // the signal travels to Node's request outside send()'s options (s3-calls.ts, the SDK's cached chain)
    const port = await freePort();
    const accepted: net.Socket[] = [];
    let closed = 0;
    const silent = net.createServer((socket) => {
      accepted.push(socket);
      socket.resume().on('close', () => closed++); // reads the request, answers nothing
    });
    await new Promise<void>((r) => silent.listen(port, '127.0.0.1', r));
    try {
      const st = store({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 60_000 });
      const ac = new AbortController();
      const t0 = Date.now();
      const put = st.put(Buffer.from('x'), { maxBytes: 10, signal: ac.signal });
      await vi.waitFor(() => expect(accepted.length).toBe(1));
      ac.abort(new Error('client went away'));
      await expect(put).rejects.toThrow('client went away');
      await vi.waitFor(() => expect(closed).toBe(1)); // the request was destroyed, not left to its socket time-out
      // a call through the SDK's commands (the put above is the signed one, s3-signed-put.ts)
      const gone = new AbortController();
      const get = st.get(sha(Buffer.from('x')), { signal: gone.signal });
      await vi.waitFor(() => expect(accepted.length).toBe(2));
      gone.abort(new Error('reader went away'));
      await expect(get).rejects.toThrow('reader went away');
      await vi.waitFor(() => expect(closed).toBe(2));
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      for (const s of accepted) s.destroy();
      silent.close();
    }
  });

  it('every request carries the SHA-256 of its own body: a small put the one the driver computed, each part its own', async () => {
    // a recording proxy in front of s3rver: the driver hands the signer the SHA-256 it hashed while
    // the bytes streamed in (x-amz-content-sha256), so the signer does not hash the body again
    const seen: { method: string; url: string; header: string | undefined; body: string }[] = [];
    const target = new URL(s3.endpoint);
    const proxy = http.createServer((req, res) => {
      const h = createHash('sha256');
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => (h.update(c), parts.push(c)));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, header: req.headers['x-amz-content-sha256'] as string | undefined, body: h.digest('hex') });
        const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        out.end(Buffer.concat(parts));
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
    try {
      const st = store({ endpoint: `http://127.0.0.1:${port}` });
      const small = randomBytes(100 * 1024);
      const put = await st.put(chunks(small, 16 * 1024), { maxBytes: 20 * 1024 * 1024 });
      expect(put.sha256).toBe(sha(small));
      const whole = seen.find((r) => r.method === 'PUT' && r.url.includes(put.sha256));
      expect(whole?.header).toBe(put.sha256);
      expect(sha(await st.get(put.sha256))).toBe(put.sha256); // landed with those bytes
      const large = randomBytes(6 * 1024 * 1024); // two parts, then a copy to its key
      const big = await st.put(chunks(large, 64 * 1024), { maxBytes: 20 * 1024 * 1024 });
      expect(sha(await st.get(big.sha256))).toBe(sha(large));
      const puts = seen.filter((r) => r.method === 'PUT');
      expect(puts.filter((r) => r.url.includes('partNumber=')).length).toBe(2);
      for (const r of puts) expect(r.header, `${r.url}`).toBe(r.body); // no known hash given to the wrong body
    } finally {
      proxy.close();
    }
  });

  it("a caller's signal kept across calls holds none of their listeners once they end", async () => {
    const st = store();
    const ac = new AbortController();
    const { sha256 } = await st.put(Buffer.from('kept'), { maxBytes: 10, signal: ac.signal });
    for (let i = 0; i < 20; i++) await st.get(sha256, { signal: ac.signal });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it("the caller's abort signal ends a call with its own reason", async () => {
    const st = store();
    const ac = new AbortController();
    ac.abort(new Error('client went away'));
    await expect(st.get(sha(Buffer.from('y')), { signal: ac.signal })).rejects.toThrow('client went away');
  });
});
