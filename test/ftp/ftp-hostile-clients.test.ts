// Hostile FTP clients (issue 49): a LIST pattern built to make a backtracking RegExp explode, and
// floods before login from one address. The service (every role in this process) must keep
// answering /healthz at once and keep serving clients of other addresses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testkit/ports.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { flood, limitHits, openedWithin, rawConnect, type Flood } from '../helpers/connection-flood.ts';
import { curlUpload, intakeIdOf } from './ftp-clients.ts';
import { run, section } from './ftp-client-jobs.ts';
import { startFtpApp, type FtpAccount, type FtpApp } from './ftp-harness.ts';

const CLIENTS = path.join(path.dirname(new URL(import.meta.url).pathname), 'clients');
const LIMITS = { transferMaxUnauthenticatedPerAddress: 4, transferConnectionsPerMinutePerAddress: 30, transferHandshakeTimeoutMs: 3000 };
const t = {} as FtpApp & { account: FtpAccount; dir: string; implicitPort: number };

beforeAll(async () => {
  const implicitPort = await freePort();
  const app = await startFtpApp({ config: { ...LIMITS, ftpsImplicitPort: implicitPort } });
  Object.assign(t, app, { account: await app.ftpAccount(), dir: fs.mkdtempSync(path.join(os.tmpdir(), 'ii-ftp-hostile-')), implicitPort });
});
afterAll(async () => {
  await t.close?.();
  if (t.dir) fs.rmSync(t.dir, { recursive: true, force: true });
});

/** GET /healthz back to back until `done` settles: each answer's time in ms. */
async function healthLatencies(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const out: number[] = [];
  while (!finished || out.length < 5) {
    const started = performance.now();
    const res = await t.request('GET', '/healthz');
    out.push(performance.now() - started);
    expect(res.status).toBe(200);
  }
  return out;
}

const patternsJob = (remote: string, local: string, patterns: string[]) =>
  run('/usr/bin/python3', [path.join(CLIENTS, 'ftplib-patterns.py'), String(t.port), t.account.ftpUsername, t.account.liveKey, local, remote, ...patterns]);

describe('LIST patterns', () => {
  it('a pattern that backtracks as a RegExp (and a long one) is answered at once over FTPS; /healthz stays under 100 ms', async () => {
    const name = `${'a'.repeat(36)}.pdf`; // 40 characters
    const local = path.join(t.dir, 'pattern.pdf');
    fs.writeFileSync(local, await makePdf('pattern'));
    const uploaded = await patternsJob(name, local, []);
    expect(section(uploaded.stdout, 'UPLOAD'), uploaded.stderr).toMatch(/^226 /);
    // the upload's intake has run (it waits for its invoice): nothing else is busy in the process
    await expect.poll(async () => (await t.imports(t.account.liveKey)).find((r) => r.filename === name)?.status, { timeout: 20_000 }).toBe('waiting');
    await t.request('GET', '/healthz');
    const patterns = ['*a*a*a*a*a*a*a*a*b', `${'*a'.repeat(120)}*b`, '*a*a*a*.pdf'];
    const client = patternsJob('-', local, patterns);
    const latencies = await healthLatencies(client);
    const out = await client;
    expect(out.code, out.stderr).toBe(0);
    expect(Math.max(...latencies), latencies.map(Math.round).join(' ')).toBeLessThan(100);
    // no match: an empty listing and its 226; the third pattern lists the file
    expect(section(out.stdout, 'P0').trim()).toMatch(/^226 /);
    expect(section(out.stdout, 'P1').trim()).toMatch(/^226 /);
    expect(section(out.stdout, 'P2')).toContain(` ${name}\n`);
  });

  it('a pattern over the length cap or with a backwards range is refused with 550 and a reason', async () => {
    const out = await patternsJob('-', '-', ['*'.repeat(300), '[z-a]*', '*.pdf']);
    expect(out.code, out.stderr).toBe(0);
    expect(section(out.stdout, 'P0').trim()).toBe('550 Pattern too long (at most 255 characters)');
    expect(section(out.stdout, 'P1').trim()).toBe('550 Invalid range in pattern: z-a');
    expect(section(out.stdout, 'P2').trim()).toMatch(/226 /);
  });
});

/** An invoice and a local PDF named after its number. */
async function invoiceFile(): Promise<{ invoice: { id: string; invoiceNumber: string }; file: string }> {
  const invoice = await t.invoice(t.account.liveKey);
  const file = path.join(t.dir, `${invoice.invoiceNumber}.pdf`);
  fs.writeFileSync(file, await makePdf(invoice.invoiceNumber));
  return { invoice, file };
}

describe('floods before login', () => {
  const floods: Flood[] = [];
  afterAll(() => floods.forEach((f) => f.end()));

  it('205 idle connections from 127.0.0.2: 4 get the greeting, the rest 421 and closed; curl on 127.0.0.1 logs in and uploads over FTPS meanwhile', async () => {
    const before = await limitHits(t, 'ftp', 'per_address');
    const f = await flood(t.port, '127.0.0.2', 205);
    floods.push(f);
    await expect.poll(() => f.settled(), { timeout: 10_000 }).toBe(205);
    expect(f.greeted(/^220/)).toBe(4);
    expect(f.greeted(/^421 Too many connections from your address/)).toBe(201);
    expect(f.closedCount()).toBeGreaterThanOrEqual(201);
    const { invoice, file } = await invoiceFile();
    const up = await curlUpload(t.port, t.account.ftpUsername, t.account.liveKey, file, '', { tls: true });
    expect(up.code, up.stderr).toBe(0);
    expect(await t.waitFor(t.account.liveKey, intakeIdOf(up.stderr))).toMatchObject({ status: 'attached', invoice: invoice.id });
    expect((await limitHits(t, 'ftp', 'per_address')) - before).toBeGreaterThanOrEqual(201);
    const line = t.logLines.map((l) => JSON.parse(l)).find((l) => l.prelogin === 'per_address' && l.address === '127.0.0.2');
    expect(line).toMatchObject({ level: 40, protocol: 'ftp', limit: 4, msg: 'ftp connection refused: too many connections not logged in from this address' });
    // the 4 silent ones are closed by the handshake timeout (3 s), with a 421
    const started = Date.now();
    await expect.poll(() => f.closedCount(), { timeout: 8000 }).toBe(205);
    expect(Date.now() - started).toBeLessThan(LIMITS.transferHandshakeTimeoutMs + 2000);
    expect(f.replies().filter((r) => r.startsWith('421 Login timeout: log in within 3 s of connecting'))).toHaveLength(4);
    f.end();
  });

  it('a silent socket is closed within the handshake timeout, counted and logged', async () => {
    const before = await limitHits(t, 'ftp', 'handshake_timeout');
    const socket = await rawConnect(t.port, '127.0.0.6');
    const opened = Date.now();
    const closedAt = await openedWithin(socket, LIMITS.transferHandshakeTimeoutMs + 2000);
    expect(closedAt - opened).toBeGreaterThanOrEqual(LIMITS.transferHandshakeTimeoutMs - 200);
    await expect.poll(() => limitHits(t, 'ftp', 'handshake_timeout')).toBe(before + 1);
    expect(t.logLines.some((l) => l.includes('"prelogin":"handshake_timeout"') && l.includes('"address":"127.0.0.6"'))).toBe(true);
  });

  it('new connections per minute from one address: the 31st within the minute is refused though each closed at once', async () => {
    const before = await limitHits(t, 'ftp', 'rate');
    for (let i = 0; i < LIMITS.transferConnectionsPerMinutePerAddress; i++) {
      const f = await flood(t.port, '127.0.0.3', 1);
      await expect.poll(() => f.settled()).toBe(1);
      expect(f.greeted(/^220/)).toBe(1);
      f.end();
    }
    const last = await flood(t.port, '127.0.0.3', 1);
    floods.push(last);
    await expect.poll(() => last.settled()).toBe(1);
    expect(last.greeted(/^421 Too many connections from your address/)).toBe(1);
    expect(await limitHits(t, 'ftp', 'rate')).toBe(before + 1);
  });

  it('implicit FTPS: a flood of TCP connections from 127.0.0.4 is cut off before TLS; curl (ftps://) on 127.0.0.1 uploads', async () => {
    const f = await flood(t.implicitPort, '127.0.0.4', 50, { greeting: false });
    floods.push(f);
    // 4 held (silent: no TLS hello), 46 closed at once
    await expect.poll(() => f.closedCount(), { timeout: 10_000 }).toBe(46);
    const { invoice, file } = await invoiceFile();
    const up = await run('curl', [
      '-sS',
      '-v',
      '--ssl-reqd',
      '-k',
      '--user',
      `${t.account.ftpUsername}:${t.account.liveKey}`,
      '-T',
      file,
      `ftps://127.0.0.1:${t.implicitPort}/`,
    ]);
    expect(up.code, up.stderr).toBe(0);
    expect(await t.waitFor(t.account.liveKey, intakeIdOf(up.stderr))).toMatchObject({ status: 'attached', invoice: invoice.id });
    // the held ones do not outlive the handshake timeout
    await expect.poll(() => f.closedCount(), { timeout: LIMITS.transferHandshakeTimeoutMs + 3000 }).toBe(50);
  });
});
