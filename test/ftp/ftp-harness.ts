// Test harness for the FTP channel: the real service (roles api, worker, ftp) on a fresh
// PostgreSQL database with a private Redis prefix, a self-signed certificate (selfsigned, as the
// ftp role makes its own), random free ports (a distinct random passive range per test file).
// The clients are in ftp-clients.ts (basic-ftp, curl), raw-ftp.ts and ftp-client-jobs.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLogger } from '../../src/platform/logger.ts';
import { startService, type RunningService } from '../../src/app/start-service.ts';
import type { Config } from '../../src/config/config.ts';
import type { Database } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import { transferReadings, type TransferCounter } from '../../src/channels/transfer/transfer-metrics.ts';
import { makeSelfSignedCert } from '../../src/channels/ftp/self-signed-cert.ts';
import { httpClient, type HttpRequest } from '../../testkit/http-client.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { waitForImport } from '../helpers/imports.ts';
import { testConfig } from '../helpers/test-app.ts';
import { dropQueueKeys } from '../intake/intake-harness.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { curlUpload, intakeIdOf, type CurlResult } from './ftp-clients.ts';

export interface FtpAccount {
  id: string;
  ftpUsername: string;
  liveKey: string;
  testKey: string;
}

export interface FtpApp {
  svc: RunningService;
  config: Config;
  db: Database;
  /** the service's API over real HTTPS (its self-signed certificate) */
  request: HttpRequest;
  /** polls the intake record until it is attached or failed (or `done` says so) and returns it */
  waitFor(key: string, id: string, done?: (r: any) => boolean, ms?: number): Promise<any>;
  close(): Promise<void>;
  port: number;
  pasvRange: [number, number];
  certDir: string;
  /** every log line the service wrote (JSON) */
  logLines: string[];
  ftpAccount(): Promise<FtpAccount>;
  /** a new upload key of the API key's mode (POST /v2/account/upload-keys), limited to `networks` (default: this host) */
  uploadKey(key: string, networks?: string[], name?: string): Promise<{ id: string; key: string }>;
  invoice(key: string, invoiceNumber?: string): Promise<{ id: string; invoiceNumber: string }>;
  /** the account-and-mode's intake records (GET /v2/imports), newest first */
  imports(key: string): Promise<any[]>;
  documentsOf(invoiceId: string): Promise<{ id: string; deleted_at: Date | null; source: string; filename: string }[]>;
  /** the ftp_* (or sftp_*) counters now, from the service's metrics registry (what GET /metrics serves) */
  counters(protocol?: 'ftp' | 'sftp'): Promise<Record<TransferCounter, number>>;
  /** open connections or running transfers now, from the same registry */
  gauge(name: 'connections' | 'transfers', protocol?: 'ftp' | 'sftp'): Promise<number>;
}

/** A self-signed certificate for localhost, made as the ftp role makes its own (selfsigned). */
export async function makeCertificate(): Promise<{ dir: string; cert: string; key: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-cert-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const pems = await makeSelfSignedCert({ commonName: 'localhost', days: 2, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  fs.writeFileSync(cert, pems.cert);
  fs.writeFileSync(key, pems.key, { mode: 0o600 });
  return { dir, cert, key };
}

/** A random passive port range of `size` ports that are free right now. */
export async function freePortRange(size = 30): Promise<[number, number]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const start = 20_000 + Math.floor(Math.random() * 30_000);
    const ports = Array.from({ length: size }, (_, i) => start + i);
    const free = await Promise.all(ports.map(portIsFree));
    if (free.every(Boolean)) return [start, start + size - 1];
  }
  throw new Error('no free passive port range found');
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}${randomToken(3)}`;

export type FtpTestFile = FtpApp & { account: FtpAccount; dir: string };

/** A test file's service, one account and a scratch folder: filled in before its tests, removed after. */
export function ftpTestFile(opts: FtpAppOptions = {}): FtpTestFile {
  const file = {} as FtpTestFile;
  beforeAll(async () => {
    const app = await startFtpApp(opts);
    Object.assign(file, app, { account: await app.ftpAccount(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-')) });
  });
  afterAll(async () => {
    await file.close?.();
    if (file.dir) fs.rmSync(file.dir, { recursive: true, force: true });
  });
  return file;
}

/** `db`: another node's database (this node then leaves it open, and the queue keys, when it closes) */
export type FtpAppOptions = { config?: Partial<Config>; tls?: boolean; db?: Database };

export async function startFtpApp(opts: FtpAppOptions = {}): Promise<FtpApp> {
  const cert = opts.tls === false ? undefined : await makeCertificate();
  const pasvRange = await freePortRange();
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const config = testConfig({
    roles: ['api', 'worker', 'ftp'],
    logLevel: 'info',
    ftpHost: '127.0.0.1',
    ftpPort: 0,
    ftpPasvUrl: '127.0.0.1',
    ftpPasvRange: pasvRange,
    tlsCert: cert?.cert,
    tlsKey: cert?.key,
    transferMaxConnectionsPerAccount: 32,
    intakeBackoffMs: 60_000,
    intakeBackoffMaxMs: 60_000,
    ...opts.config,
  });
  const db = opts.db ?? (await openTestDatabase());
  const svc = await startService(config, createLogger(config.logLevel, sink), { db });
  if (!svc.ftpPort) {
    await svc.stop();
    await db.close();
    throw new Error(`the ftp role did not start:\n${logLines.slice(-5).join('\n')}`);
  }
  // the API serves HTTPS with the same self-signed certificate
  const request = httpClient(svc.apiUrl!);
  return {
    svc,
    config,
    db,
    request,
    waitFor: (key, id, done, ms = 30_000) => waitForImport(request, key, id, done, ms),
    async close() {
      await svc.stop();
      if (!opts.db) {
        await dropQueueKeys(config);
        await db.close();
      }
      if (cert) fs.rmSync(cert.dir, { recursive: true, force: true });
    },
    port: svc.ftpPort,
    pasvRange,
    certDir: cert?.dir ?? '',
    logLines,
    async ftpAccount() {
      const a = await svc.container.accounts.create(`ftp-${randomToken(6)}`);
      return { id: a.id, ftpUsername: a.ftpUsername, liveKey: a.liveKey, testKey: a.testKey };
    },
    async uploadKey(key, networks = ['127.0.0.1/32'], name = 'Scanner') {
      const res = await request('POST', '/v2/account/upload-keys', { key, body: { name, networks } });
      if (res.status !== 201) throw new Error(`upload key: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, key: res.body.key };
    },
    async invoice(key, invoiceNumber = `F-${unique()}`) {
      const c = await request('POST', '/v2/customers', { key, body: { customerCode: `C-${unique()}`, name: 'FTP BV' } });
      if (c.status !== 201) throw new Error(`customer: ${c.status} ${JSON.stringify(c.body)}`);
      const res = await request('POST', '/v2/invoices', {
        key,
        body: { customer: c.body.id, invoiceNumber, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: '100.00' },
      });
      if (res.status !== 201) throw new Error(`invoice: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async imports(key) {
      const res = await request('GET', '/v2/imports?limit=250', { key });
      if (res.status !== 200) throw new Error(`imports: ${res.status}`);
      return res.body.imports;
    },
    documentsOf: (invoiceId) => db.query('select id, deleted_at, source, filename from documents where invoice_id = $1 order by created_at', [invoiceId]),
    counters: (protocol = 'ftp') => transferReadings(svc.container.metrics.registry, protocol).all(),
    gauge: (name, protocol = 'ftp') => transferReadings(svc.container.metrics.registry, protocol).gauge(name),
  };
}

/** curl -T by invoice number (its local file name) and by id (a remote name): both attached. Returns curl's two runs. */
export async function expectCurlUploadsAttached(t: FtpTestFile, opts: { tls: boolean; password?: string }): Promise<CurlResult[]> {
  const key = t.account.liveKey;
  const password = opts.password ?? key;
  const byNumber = await t.invoice(key);
  const byId = await t.invoice(key);
  const numbered = path.join(t.dir, `${byNumber.invoiceNumber}.pdf`);
  fs.writeFileSync(numbered, await makePdf('curl number'));
  const local = path.join(t.dir, 'local-name.pdf');
  fs.writeFileSync(local, await makePdf('curl id'));
  const runs = [
    await curlUpload(t.port, t.account.ftpUsername, password, numbered, '', opts),
    await curlUpload(t.port, t.account.ftpUsername, password, local, `${byId.id}.pdf`, opts),
  ];
  for (const run of runs) expect(run.code, run.stderr).toBe(0);
  expect(await t.waitFor(key, intakeIdOf(runs[0].stderr))).toMatchObject({ status: 'attached', invoice: byNumber.id, channel: 'ftp' });
  expect(await t.waitFor(key, intakeIdOf(runs[1].stderr))).toMatchObject({ status: 'attached', invoice: byId.id, channel: 'ftp' });
  return runs;
}

/** A real PDF of about `size` bytes: random (incompressible) bytes attached to a one-page PDF. */
export async function bigPdf(size: number, text = 'Invoice'): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText(text, { x: 50, y: 780, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  await doc.attach(randomBytes(size), 'filler.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export { until } from '../../testkit/wait.ts';
