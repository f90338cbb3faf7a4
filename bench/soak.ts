// Memory soak: --files real inputs from ../shared/corpora (hybrid e-invoice PDFs, other PDFs,
// standalone XML e-invoices, mail messages) over all four channels at once (FTPS, SFTP, HTTP,
// SMTP; two connections each, kept for the run), into the service as `npm start` runs it (one
// process, every role), on the embedded default (PGlite in DATA_DIR, the private Redis it
// starts) and on PostgreSQL (a fresh database, a private Redis). The service's resident memory
// (VmRSS of its process; the tree's beside it) is sampled every --sample-seconds while the files
// flow and once more when every file is done; prints the samples and the ratio of the last to
// the first sample after the first 5,000 files (target at most 1.2).
// Invoices exist for the corpus's e-invoice numbers, so the first file naming one attaches; the
// rest end failed at once (INTAKE_MATCH_WINDOW_MS=0), after the whole check, reading and render.
//
//   npm run bench:soak -- [--files 50000] [--db pglite,postgres] [--sample-seconds 10] [--early 5000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomToken } from '../src/domain/ids.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { freePort } from '../testkit/ports.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { spawnService } from '../testkit/service-process.ts';
import { apiCaller, buildService, cpuMs, pool, runBench, waitUntilReady } from './bench-kit.ts';
import { httpClient } from '../testkit/http-client.ts';
import { ftpsLane, httpLane, sftpLane, smtpLane, type Lane, type Target } from './soak/channels.ts';
import { soakInputs } from './soak/inputs.ts';
import { heapMb, rssKb, settled, treeRssKb } from './soak/memory.ts';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '50000' },
    db: { type: 'string', default: 'pglite,postgres' },
    'sample-seconds': { type: 'string', default: '10' },
    early: { type: 'string', default: '5000' },
    lanes: { type: 'string', default: '2' },
    // K=V for the service's environment, repeatable (e.g. MALLOC_ARENA_MAX=2 to tell glibc's arenas from the heap)
    env: { type: 'string', multiple: true, default: [] },
  },
});
const FILES = Number(values.files);
const EARLY = Math.min(Number(values.early), Math.floor(FILES / 2));
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const LANES = Number(values.lanes);
const load = () => os.loadavg()[0].toFixed(1);
const MB = (kb: number) => (kb / 1024).toFixed(0);

interface Sample {
  seconds: number;
  sent: number;
  rssKb: number;
  treeKb: number;
  load: string;
}

async function soak(kind: 'pglite' | 'postgres'): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-bench-soak-'));
  const cert = path.join(work, 'cert.pem');
  const keyFile = path.join(work, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  const redis = kind === 'postgres' ? await startPrivateRedis() : undefined;
  const db = kind === 'postgres' ? await createPgDatabase() : undefined;
  const adminToken = `adm_${randomToken(24)}`;
  const [ftpPort, sftpPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const env: Record<string, string> = {
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(work, 'data'),
    RATE_LIMIT_MAX: '10000000',
    TLS_CERT: cert,
    TLS_KEY: keyFile,
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv}-${pasv + 49}`,
    SFTP_PORT: String(sftpPort),
    SFTP_HOST: '127.0.0.1',
    SMTP_LISTEN: `127.0.0.1:${smtpPort}`,
    SMTP_MAX_CONNECTIONS_PER_IP: '1000',
    SMTP_MESSAGES_PER_SENDER_PER_HOUR: '1000000',
    INTAKE_MATCH_WINDOW_MS: '0',
    ...Object.fromEntries(values.env!.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
    ...(db && redis ? { DATABASE_URL: db.url, REDIS_URL: redis.url, REDIS_PREFIX: 'iisoak' } : { REDIS_DEFAULT_URL: `redis://127.0.0.1:${await freePort()}` }),
  };
  const svc = spawnService(['api', 'ftp', 'sftp', 'smtp', 'worker'], env, { build: 'dist' });
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const lanes: Lane[] = [];
  try {
    const base = await svc.url();
    // every listener up (FTP, SFTP, SMTP start after the API answers)
    const ready = httpClient(base);
    await waitUntilReady(async () => (await ready('GET', '/readyz')).status === 200, 'the service', 180_000);
    const call = apiCaller(base);
    const account = await call('POST', '/admin/accounts', adminToken, { name: 'soak' });
    const key = account.liveKey as string;
    const inputs = soakInputs(account.importAddresses.live);
    const customer = await call('POST', '/v2/customers', key, { customerCode: 'SOAK', name: 'Soak' });
    await pool(inputs.numbers.length, 4, (i) =>
      call('POST', '/v2/invoices', key, {
        customer: customer.id,
        invoiceNumber: inputs.numbers[i],
        invoiceDate: '01-02-2026',
        invoiceDuedate: '01-03-2026',
        invoiceTotal: '100.00',
      }).catch(() => undefined),
    );
    const t: Target = { base, key, user: account.ftpUsername, ftpPort, sftpPort, smtpPort, to: account.importAddresses.live };
    const pid = svc.proc.pid!;
    const startKb = rssKb(pid);
    console.log(
      `\n${kind}: service up, ${MB(startKb)} MB resident before the first file; ${inputs.files.length} corpus files and ${inputs.messages.length} messages, ${FILES} items over FTPS, SFTP, HTTP and SMTP (${LANES} connections each); load ${load()}`,
    );
    for (let l = 0; l < LANES; l++)
      lanes.push(await ftpsLane(t, inputs.files), await sftpLane(t, inputs.files), await httpLane(t, inputs.files), await smtpLane(t, inputs.messages));

    const samples: Sample[] = [];
    let sent = 0;
    const t0 = performance.now();
    const cpu0 = cpuMs([pid]);
    const client0 = process.cpuUsage();
    const sample = async () => {
      const s = { seconds: (performance.now() - t0) / 1000, sent, rssKb: rssKb(pid), treeKb: treeRssKb(pid), load: load() };
      samples.push(s);
      // the main thread's V8 heap and its external memory (Buffers) beside the resident set: what
      // the resident set holds beyond them and the PDF check threads' heaps is the allocator's
      const heap = await heapMb(base).catch(() => undefined);
      console.log(
        `  ${s.seconds.toFixed(0).padStart(5)} s  ${String(s.sent).padStart(6)} sent  ${MB(s.rssKb).padStart(5)} MB service  ${MB(s.treeKb).padStart(5)} MB tree${heap ? `  heap ${heap.used} MB used of ${heap.total}, external ${heap.external} MB, PDF threads' heaps ${heap.threads} MB` : ''}  load ${s.load}`,
      );
    };
    const timer = setInterval(() => void sample(), SAMPLE_MS);
    // each lane sends the items of its channel (k % 4), one at a time
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      lanes.map(async (lane) => {
        while (next < FILES) {
          const k = next++;
          await lane.send(k).catch((e) => failures.push(`${k}: ${e.message}`));
          sent++;
        }
      }),
    );
    const sentSeconds = (performance.now() - t0) / 1000;
    const done = await settled(base, adminToken, 900_000);
    clearInterval(timer);
    await sample();
    const clientCpu = process.cpuUsage(client0);
    const early = samples.find((s) => s.sent >= EARLY) ?? samples[0];
    const last = samples[samples.length - 1];
    const peak = samples.reduce((m, s) => Math.max(m, s.rssKb), 0);
    console.log(
      `${kind}: ${FILES} items sent in ${sentSeconds.toFixed(0)} s (${(FILES / sentSeconds).toFixed(1)}/s), all done ${((performance.now() - t0) / 1000).toFixed(0)} s after the first; ${done}`,
    );
    console.log(
      `${kind}: ${failures.length} sends refused${failures.length ? ` (first: ${failures.slice(0, 3).join('; ')})` : ''}; service CPU ${((cpuMs([pid]) - cpu0) / FILES).toFixed(1)} ms per item, client CPU ${((clientCpu.user + clientCpu.system) / 1000 / FILES).toFixed(1)} ms per item`,
    );
    console.log(
      `${kind}: resident ${MB(startKb)} MB at start, ${MB(early.rssKb)} MB after ${early.sent} items (${early.seconds.toFixed(0)} s), ${MB(last.rssKb)} MB at the end, peak ${MB(peak)} MB; ratio last / early ${(last.rssKb / early.rssKb).toFixed(2)} (target <= 1.2); tree last / early ${(last.treeKb / early.treeKb).toFixed(2)}; load ${load()}`,
    );
  } finally {
    for (const lane of lanes) await lane.close().catch(() => {});
    svc.signal('SIGTERM');
    await svc.exited;
    await redis?.stop();
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runBench(async () => {
  buildService();
  for (const kind of values.db!.split(',') as ('pglite' | 'postgres')[]) await soak(kind);
});
