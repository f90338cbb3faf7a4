// An S3 server of its own: s3rver 3.7.1 run as a separate process (not in the test's process, so
// killing it cuts every connection the way a crashed object store does) on a free loopback port,
// keeping its objects in a temp folder. It can be killed and started again on the same port and
// folder: what it had stored is there after the restart, as with a real store coming back.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { until } from './wait.ts';

/** s3rver's fixed credentials: its authentication checks signatures made with them. */
export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

export interface S3Server {
  port: number;
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  /** where it keeps the objects (bucket/key as files) */
  dir: string;
  /** the process id while it runs */
  pid(): number | undefined;
  /** the environment a service (or the SDK's default credential chain) needs to use it */
  env(prefix: string): Record<string, string>;
  /** SIGKILL: no goodbye, open requests are cut */
  kill(): Promise<void>;
  /** starts it again on the same port and folder */
  start(): Promise<void>;
  /** kills it and removes its folder */
  destroy(): Promise<void>;
}

/** Whether anything answers HTTP on the port (s3rver answers GET / with its bucket list). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export async function startS3Server(bucket = 'invoice-intake-test'): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-s3-'));
  const port = await freePort();
  const bin = createRequire(import.meta.url).resolve('s3rver/bin/s3rver.js');
  let proc: ChildProcess | undefined;
  const stderr: string[] = [];
  const start = async () => {
    // --configure-bucket creates the bucket when it is not there yet (a restart keeps the one it has)
    const p = spawn(process.execPath, [bin, '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent', '--no-vhost-buckets', '--configure-bucket', bucket], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    p.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
    proc = p;
    const reap = () => p.kill('SIGKILL'); // never outlive the test process
    process.once('exit', reap);
    p.once('exit', () => process.removeListener('exit', reap));
    try {
      await until(
        async () => {
          if (p.exitCode !== null) throw new Error(`s3rver exited (${p.exitCode}): ${stderr.join('')}`);
          return answers(port);
        },
        30_000,
        `s3rver on port ${port}`,
        50,
      );
    } catch (e) {
      p.kill('SIGKILL');
      throw e;
    }
  };
  const kill = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    port,
    endpoint,
    bucket,
    dir,
    pid: () => proc?.pid,
    env: (prefix) => ({
      DOCUMENT_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_PREFIX: prefix,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      ...S3RVER_CREDENTIALS,
    }),
    kill,
    start,
    async destroy() {
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
