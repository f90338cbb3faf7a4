// Client CPU a whole-object put of 100 KB: the SDK's PutObjectCommand against the signed direct put
// (src/storage/s3-signed-put.ts) and the store's whole put as the intake makes it (TimedStore over
// S3DocumentStore, its SHA-256 known), alternating in one process, against a server that answers
// 200 at once and against s3rver (each its own process, pinned to CPU 1 with this one on CPU 0 when --pin).
import { spawn, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client, withDeadline } from '../src/storage/s3-calls.ts';
import { SignedPut } from '../src/storage/s3-signed-put.ts';
import { S3DocumentStore } from '../src/storage/s3-document-store.ts';
import { TimedStore } from '../src/storage/timed-store.ts';
import { S3RVER_CREDENTIALS, startS3Server } from '../testkit/s3-server.ts';
import { freePort } from '../testkit/ports.ts';

const arg = (n: string, d: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const calls = Number(arg('calls', '1000'));
const rounds = Number(arg('rounds', '10'));
const target = arg('target', 'null');
const pin = process.argv.includes('--pin');
Object.assign(process.env, S3RVER_CREDENTIALS);
if (pin) execFileSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' });

const bodies = Array.from({ length: 64 }, () => randomBytes(100 * 1024));
const shas = bodies.map((b) => createHash('sha256').update(b).digest('hex'));

let endpoint: string;
let bucket = 'bench';
let stop: () => Promise<void>;
if (target === 'null') {
  const port = await freePort();
  const p = spawn(
    process.execPath,
    [
      '-e',
      `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>{s.writeHead(200,{etag:'"x"'});s.end()})}).listen(${port},'127.0.0.1',()=>console.log('up'))`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((r) => p.stdout!.once('data', r));
  if (pin) execFileSync('taskset', ['-pc', '1', String(p.pid)], { stdio: 'ignore' });
  endpoint = `http://127.0.0.1:${port}`;
  stop = async () => {
    p.kill();
  };
} else {
  const s = await startS3Server(bucket);
  if (pin) execFileSync('taskset', ['-apc', '1', String(s.pid())], { stdio: 'ignore' });
  endpoint = s.endpoint;
  bucket = s.bucket;
  stop = () => s.destroy();
}
const client = s3Client({ endpoint, bucket, prefix: '', region: 'us-east-1', forcePathStyle: true, timeoutMs: 10_000 });
const signed = new SignedPut(client, bucket);
const store = new TimedStore(new S3DocumentStore({ endpoint, bucket, prefix: 'store', region: 'us-east-1', forcePathStyle: true, timeoutMs: 10_000 }), 10_000);
const key = (sha: string) => `bench/sha256/${sha.slice(0, 2)}/${sha.slice(2, 4)}/${sha}`;
const ways: Record<string, (i: number) => Promise<unknown>> = {
  sdk: (i) =>
    withDeadline('PutObject', { timeoutMs: 10_000, payloadSha256: shas[i % 64] }, (c) =>
      client.send(
        c.own(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key(shas[i % 64]!),
            Body: bodies[i % 64],
            ContentLength: bodies[i % 64]!.length,
            ContentType: 'application/octet-stream',
          }),
        ),
      ),
    ),
  store: (i) => store.put(bodies[i % 64]!, { maxBytes: 1024 * 1024, knownSha256: shas[i % 64] }),
  signed: (i) => withDeadline('PutObject', { timeoutMs: 10_000 }, (c) => signed.put(key(shas[i % 64]!), bodies[i % 64]!, shas[i % 64]!, c.signal)),
};
async function run(way: string): Promise<{ cpu: number; wall: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await ways[way]!(i);
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / calls, wall: (performance.now() - t0) / calls };
}
for (const w of Object.keys(ways)) await run(w); // warm-up
const got: Record<string, { cpu: number; wall: number }[]> = { sdk: [], signed: [], store: [] };
for (let r = 0; r < rounds; r++) for (const w of r % 2 ? ['store', 'signed', 'sdk'] : ['sdk', 'signed', 'store']) got[w]!.push(await run(w));
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [w, xs] of Object.entries(got))
  console.log(
    `${target} ${w}: client CPU a put median ${med(xs.map((x) => x.cpu)).toFixed(3)} ms (${Math.min(...xs.map((x) => x.cpu)).toFixed(3)}-${Math.max(...xs.map((x) => x.cpu)).toFixed(3)}), wall ${med(xs.map((x) => x.wall)).toFixed(3)} ms`,
  );
client.destroy();
await store.close();
await stop();
