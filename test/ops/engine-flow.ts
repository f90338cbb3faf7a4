// The engine fault tests' installation: roles split over processes (api, ftp with explicit FTPS,
// workers) on the database and Redis a test gives, and clients that behave as real ones do: an
// HTTP client resends with the same Idempotency-Key after a 503 or a cut connection, an FTPS
// client reconnects and sends again after a 4xx or a cut. Every answer is kept, so a test can
// assert that none was a 500 or a permanent FTP refusal.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Client as FtpClient, FTPError } from 'basic-ftp';
import { expect } from 'vitest';
import { randomToken } from '../../src/domain/ids.ts';
import { httpClient } from '../../testkit/http-client.ts';
import { freePort } from '../../testkit/ports.ts';
import { spawnService, type ServiceProcess } from '../../testkit/service-process.ts';
import { sleep } from '../../testkit/wait.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { freePortRange, makeCertificate } from '../ftp/ftp-harness.ts';
import type { File } from './multi-process-checks.ts';

export interface FlowOptions {
  /** DATABASE_URL, REDIS_URL or the Sentinel settings, DATABASE_POOLER, ... for every process */
  env: Record<string, string>;
  workers?: number;
}

interface HttpAnswer {
  status: number;
  retryAfter?: string;
  body?: any;
}

export interface Flow {
  processes: Map<string, ServiceProcess>;
  apiBase: string;
  key: string;
  api(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** creates an invoice per file and the file (a PDF named after its invoice number) */
  makeFiles(prefix: string, n: number, channels: File['channel'][]): Promise<File[]>;
  /** POST /v2/imports each file until 202, `width` at a time; every answer is recorded */
  sendHttp(files: File[], width?: number): Promise<void>;
  /** STOR each file over FTPS until 226, `width` sessions at a time; every reply code is recorded */
  sendFtps(files: File[], width?: number): Promise<void>;
  /** every HTTP answer that was not a 202 */
  httpAnswers: HttpAnswer[];
  /** every FTP reply code other than 226 (0: a cut connection) */
  ftpCodes: number[];
  stop(): Promise<void>;
}

export async function startFlow(opts: FlowOptions): Promise<Flow> {
  const cert = await makeCertificate();
  const apiPort = await freePort();
  const ftpPort = await freePort();
  const pasv = await freePortRange(40);
  const adminToken = `adm_${randomToken(24)}`;
  const env: Record<string, string> = {
    REDIS_PREFIX: `iitest${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-engine-')),
    DATABASE_POOL_SIZE: '8',
    INTAKE_CONCURRENCY: '8',
    INTAKE_BACKOFF_MS: '200',
    INTAKE_BACKOFF_MAX_MS: '1000',
    INTAKE_LOCK_MS: '5000',
    RATE_LIMIT_MAX: '1000000',
    ...opts.env,
  };
  const processes = new Map<string, ServiceProcess>();
  processes.set('api', spawnService(['api'], { ...env, PORT: String(apiPort) }));
  processes.set(
    'ftp',
    spawnService(['ftp'], {
      ...env,
      FTP_PORT: String(ftpPort),
      FTP_HOST: '127.0.0.1',
      FTP_PASV_URL: '127.0.0.1',
      FTP_PASV_RANGE: `${pasv[0]}-${pasv[1]}`,
      TLS_CERT: cert.cert,
      TLS_KEY: cert.key,
    }),
  );
  for (let i = 1; i <= (opts.workers ?? 2); i++) processes.set(`worker-${i}`, spawnService(['worker'], env));
  const stop = async () => {
    for (const p of processes.values()) p.signal('SIGKILL');
    await Promise.all([...processes.values()].map((p) => p.exited));
    fs.rmSync(cert.dir, { recursive: true, force: true });
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  };
  try {
    await Promise.all([...processes.values()].map((p) => p.url()));
  } catch (e) {
    await stop();
    throw e;
  }
  const apiBase = `http://127.0.0.1:${apiPort}`;
  const client = httpClient(apiBase);
  const call = async (method: string, url: string, body: unknown, token: string, headers: Record<string, string> = {}): Promise<HttpAnswer> => {
    const res = await client(method, url, { key: token, body, headers });
    return { status: res.status, retryAfter: res.headers['retry-after'] as string | undefined, body: res.body };
  };
  const account = await call('POST', '/admin/accounts', { name: 'engines' }, adminToken);
  expect(account.status).toBe(201);
  const key: string = account.body.liveKey;
  const ftpUser: string = account.body.ftpUsername;
  const api = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => call(method, url, body, key, headers);
  const customer = await api('POST', '/v2/customers', { customerCode: `E-${randomToken(4)}`, name: 'Engines BV' });
  expect(customer.status).toBe(201);
  const httpAnswers: HttpAnswer[] = [];
  const ftpCodes: number[] = [];

  const makeFiles = async (prefix: string, n: number, channels: File['channel'][]) => {
    const files: File[] = [];
    for (let i = 0; i < n; i++) {
      const number = `${prefix}-${i}`;
      for (;;) {
        const res = await api(
          'POST',
          '/v2/invoices',
          { customer: customer.body.id, invoiceNumber: number, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '10.00' },
          { 'idempotency-key': `inv-${number}` },
        );
        if (res.status === 201) {
          const bytes = await makePdf(`Invoice ${number}`);
          files.push({
            number,
            invoiceId: res.body.id,
            bytes,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            channel: channels[i % channels.length],
          });
          break;
        }
        httpAnswers.push(res);
        if (res.status !== 503) throw new Error(`invoice ${number}: ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(100); // a client's pause before it sends again
      }
    }
    return files;
  };

  const sendHttp = async (files: File[], width = 4) => {
    const queue = [...files];
    await Promise.all(
      Array.from({ length: width }, async () => {
        for (let f; (f = queue.shift()); ) {
          for (;;) {
            try {
              const res = await api(
                'POST',
                '/v2/imports',
                { Filename: `${f.number}.pdf`, Content: f.bytes.toString('base64') },
                { 'idempotency-key': `imp-${f.number}` },
              );
              if (res.status === 202) break;
              httpAnswers.push(res);
            } catch (e) {
              if (!/ECONNREFUSED|ECONNRESET|EPIPE|socket/i.test(`${(e as Error).message} ${(e as NodeJS.ErrnoException).code}`)) throw e;
              httpAnswers.push({ status: 0 });
            }
            await sleep(100); // a client's pause before it sends again, not a wait for the service
          }
        }
      }),
    );
  };

  const sendFtps = async (files: File[], width = 3) => {
    const queue = [...files];
    await Promise.all(
      Array.from({ length: width }, async () => {
        let client: FtpClient | undefined;
        try {
          for (let f; (f = queue.shift()); ) {
            for (;;) {
              try {
                if (!client || client.closed) {
                  client = new FtpClient(60_000);
                  await client.access({
                    host: '127.0.0.1',
                    port: ftpPort,
                    user: ftpUser,
                    password: key,
                    secure: true,
                    secureOptions: { rejectUnauthorized: false },
                  });
                }
                const res = await client.uploadFrom(Readable.from([f.bytes]), `${f.number}.pdf`);
                if (res.code === 226) break;
                ftpCodes.push(res.code);
              } catch (e) {
                ftpCodes.push(e instanceof FTPError ? e.code : 0);
                client?.close();
                client = undefined;
              }
              await sleep(100); // a client's pause before it sends again
            }
          }
        } finally {
          client?.close();
        }
      }),
    );
  };

  return { processes, apiBase, key, api, makeFiles, sendHttp, sendFtps, httpAnswers, ftpCodes, stop };
}

/** The answers a client may see while an engine is away: 503 with Retry-After and the spec's body, or a cut connection. */
export function expectOnlyRetryable(flow: Flow): void {
  for (const a of flow.httpAnswers) {
    if (a.status === 0) continue;
    expect(a.status, JSON.stringify(a.body)).toBe(503);
    expect(a.retryAfter).toMatch(/^\d+$/);
    expect(Object.keys(a.body).sort()).toEqual(['detail', 'status', 'title']);
    expect(a.body.status).toBe(503);
  }
  // 421 (login or connection refused for now), 425/426 (data connection), 451 (not staged): all transient
  for (const code of flow.ftpCodes) expect([0, 421, 425, 426, 450, 451]).toContain(code);
}
