// Matching against real inputs: every file of a corpus (real Factur-X / ZUGFeRD / XRechnung PDFs,
// real PDFs without an e-invoice, XML e-invoices) sent to the service under a meaningless name (the
// real names of cameras, phones, scanners and mail programs of --names, then scanner-like
// counters) and under the exact name of ANOTHER existing invoice (a conflict: refused is expected),
// by POST /v2/imports and by FTPS. Prints per channel right / wrong / refused / waiting and lists
// the wrong ones; exits 1 when any file went to the wrong invoice, when a file whose e-invoice
// names an invoice of its total (positive or negative: credit notes) was not attached to it, or
// when a reason holds a library's message. The expected invoice and total of each file are read
// without our code (bench/corpus-expected.ts: qpdf and regular expressions).
//
//   npm run corpus:matching -- [--corpus DIR] [--names FILE] [--channels http,ftp] [--wait-ms 60000]
//
// DIR: the shared corpora (default ../shared/corpora beside the checkout; every folder its README
// describes). They are public material and stay outside the repository (docs/matching.md,
// "Measuring with real inputs"). CI runs it: test/intake/corpus-matching.test.ts.
//
// The service runs as a process (src/main.ts, roles api, worker, ftp) on a fresh PostgreSQL
// database and a private redis-server, and is reached only through its public interfaces: the
// admin API, /v2 and FTPS. Two fresh accounts (meaningless names in one, conflicts in the other)
// hold the same invoices: one per number of the corpus, plus short numbers that accounting systems
// really use (2024, 0815, ...), so that names full of counters and dates meet numbers they could be
// mistaken for.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { Client } from 'basic-ftp';
import { randomToken } from '../src/domain/ids.ts';
import { ROOT } from '../testkit/paths.ts';
import { freePort } from '../testkit/ports.ts';
import { createPgDatabase } from '../testkit/postgres.ts';
import { startPrivateRedis } from '../testkit/private-redis.ts';
import { spawnService } from '../testkit/service-process.ts';
import { pollFor } from '../testkit/wait.ts';
import { apiCaller, pool, runBench, waitUntilReady } from './bench-kit.ts';
import { LIBRARY_MESSAGE, readSharedCorpora, type CorpusFile } from './corpus-expected.ts';
import { asFile, counterName, DISTRACTORS, exactName, meaninglessNames } from './corpus-names.ts';
import { tallyVerdicts, type Account, type Case, type Channel, type Upload } from './corpus-verdicts.ts';
import { selfSignedCert } from './self-signed.ts';

const { values } = parseArgs({
  options: {
    // the shared corpora, outside the repository (../shared/corpora/README.md)
    corpus: { type: 'string', default: path.resolve(ROOT, '../shared/corpora') },
    channels: { type: 'string', default: 'http,ftp' },
    // real file names (name, source, meaningless yes/no), kept beside the corpus; without it: counters, dates and words made here
    names: { type: 'string' },
    // how long after the last upload a file may still be waiting before it counts as waiting
    'wait-ms': { type: 'string', default: '60000' },
    concurrency: { type: 'string', default: '4' },
  },
});
const CHANNELS = values.channels!.split(',').map((c) => c.trim()) as Channel[];
for (const c of CHANNELS) if (c !== 'http' && c !== 'ftp') throw new Error(`unknown channel ${c} (http, ftp)`);
const WAIT_MS = Number(values['wait-ms']);
const CONCURRENCY = Number(values.concurrency);

const key = (c: string, channel: string, name: string, sha256: string) => `${c}|${channel}|${name.normalize('NFC')}|${sha256}`;

runBench(async () => {
  const corpus = readSharedCorpora(values.corpus!);
  const redis = await startPrivateRedis();
  const pgdb = await createPgDatabase();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ii-corpus-'));
  const { cert, key: tlsKey } = selfSignedCert(work);
  const [port, ftpPort] = [await freePort(), await freePort()];
  const pasv = 30_000 + Math.floor(Math.random() * 20_000);
  const adminToken = `adm_${randomToken(24)}`;
  const service = spawnService(['api', 'worker', 'ftp'], {
    PORT: String(port),
    FTP_PORT: String(ftpPort),
    FTP_HOST: '127.0.0.1',
    FTP_PASV_URL: '127.0.0.1',
    FTP_PASV_RANGE: `${pasv}-${pasv + 49}`,
    TLS_CERT: cert,
    TLS_KEY: tlsKey,
    DATABASE_URL: pgdb.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `iicorpus${randomToken(6)}`,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: path.join(work, 'data'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '1000000',
    HOME: process.env.HOME ?? '/tmp',
  });
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'; // the API serves HTTPS with the self-signed certificate
  const base = `https://127.0.0.1:${port}`;
  try {
    await waitUntilReady(async () => (await fetch(`${base}/readyz`)).ok, 'the service', 180_000);
    const call = apiCaller(base);
    // two accounts with the same invoices: every number of the corpus (orders' too), and the distractors. One
    // takes the meaningless names, the other the conflicts, so that a document attached by its
    // exact name in one run never stands in the way of an e-invoice match of the other.
    const numbers = [...new Set([...corpus.flatMap((f) => [f.expected, ...f.otherNumbers]).filter((n): n is string => n !== null), ...DISTRACTORS])];
    const refusedNumbers = new Set<string>();
    // each invoice's total is its first file's (BT-112, else BT-115; a credit note's negative); a later file of
    // the same number with another total is another invoice of that number: refused by the totals check
    const totalOf = new Map<string, string>();
    for (const f of corpus) if (f.expected && f.total && !totalOf.has(f.expected)) totalOf.set(f.expected, f.total);
    const otherTotal = (f: CorpusFile) => Boolean(f.expected && f.total && Number(totalOf.get(f.expected) ?? '100.00') !== Number(f.total));
    const makeAccount = async (label: Case): Promise<Account> => {
      const created = await call('POST', '/admin/accounts', adminToken, { name: `corpus-${label}-${randomToken(4)}` });
      const acct: Account = { key: created.liveKey, ftpUsername: created.ftpUsername, invoiceOf: new Map(), numberOf: new Map() };
      const customer = await call('POST', '/v2/customers', acct.key, { customerCode: 'CORPUS-1', name: 'Corpus GmbH' });
      await pool(numbers.length, 8, async (i) => {
        try {
          const inv = await call('POST', '/v2/invoices', acct.key, {
            customer: customer.id,
            invoiceNumber: numbers[i],
            invoiceDate: '01-02-2026',
            invoiceDuedate: '01-03-2026',
            invoiceTotal: totalOf.get(numbers[i]) ?? '100.00',
          });
          acct.invoiceOf.set(numbers[i], inv.id);
          acct.numberOf.set(inv.id, numbers[i]);
        } catch (e) {
          refusedNumbers.add(`${numbers[i]} (${(e as Error).message.slice(0, 120)})`);
        }
      });
      return acct;
    };
    const accounts: Record<Case, Account> = { meaningless: await makeAccount('meaningless'), conflict: await makeAccount('conflict') };
    const accountNumbers = [...accounts.conflict.invoiceOf.keys()].sort();

    // the plan: each file under a meaningless name and under another invoice's exact name, per channel
    const names = values.names ? meaninglessNames(values.names) : [];
    const uploads: Upload[] = [];
    for (const channel of CHANNELS) {
      corpus.forEach((file, i) => {
        uploads.push({ file, channel, case: 'meaningless', acct: accounts.meaningless, name: asFile(file, i < names.length ? names[i] : counterName(i)) });
        const others = accountNumbers.filter((n) => n !== file.expected);
        const other = others[(i * 7 + 3) % others.length];
        const target = accounts.conflict.invoiceOf.get(other)!;
        uploads.push({ file, channel, case: 'conflict', acct: accounts.conflict, name: asFile(file, exactName(other, target)), nameInvoice: target });
      });
    }

    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    const http = uploads.filter((u) => u.channel === 'http');
    await pool(http.length, CONCURRENCY, async (i) => {
      const u = http[i];
      const rec = await call('POST', '/v2/imports', u.acct.key, { Filename: u.name, Content: u.file.bytes.toString('base64') });
      u.id = rec.id;
    });
    for (const acct of Object.values(accounts)) {
      const ftp = uploads.filter((u) => u.channel === 'ftp' && u.acct === acct);
      if (!ftp.length) continue;
      const clients = await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          const c = new Client(30_000);
          await c.access({
            host: '127.0.0.1',
            port: ftpPort,
            user: acct.ftpUsername,
            password: acct.key,
            secure: true,
            secureOptions: { rejectUnauthorized: false },
          });
          return c;
        }),
      );
      let next = 0;
      await Promise.all(
        clients.map(async (c) => {
          while (next < ftp.length) {
            const u = ftp[next++];
            // the 226 names the import record; when it does not, the record is found by name and bytes below
            u.id = /\b(imp_[A-Za-z0-9]+)/.exec((await c.uploadFrom(Readable.from([u.file.bytes]), u.name)).message)?.[1];
          }
          c.close();
        }),
      );
    }
    const uploadSeconds = (Date.now() - t0) / 1000;

    // every record of the accounts, found by id (or else by channel, name and bytes); polled until settled or the bound
    const byId = new Map(uploads.filter((u) => u.id).map((u) => [u.id!, u]));
    const byKey = new Map(uploads.filter((u) => !u.id).map((u) => [key(u.case, u.channel, u.name, u.file.sha256), u]));
    const readAll = async () => {
      for (const [c, acct] of Object.entries(accounts)) {
        let href: string | undefined = '/v2/imports?limit=250';
        while (href) {
          const page: any = await call('GET', href.replace(/^https?:\/\/[^/]+/, ''), acct.key);
          for (const r of page.imports) {
            const u = byId.get(r.id) ?? byKey.get(key(c, r.channel, r.filename, r.sha256));
            if (u) u.record = r;
          }
          href = page.links?.next?.href;
        }
      }
      return uploads.filter((u) => !u.record || !['attached', 'failed'].includes(u.record.status)).length;
    };
    await pollFor(readAll, (open) => open === 0, { ms: WAIT_MS, everyMs: 1000 });
    const clientCpu = process.cpuUsage(cpu0);
    const seconds = (Date.now() - t0) / 1000;

    // the verdicts
    const withNumber = corpus.filter((f) => f.expected && accounts.conflict.invoiceOf.has(f.expected)).length;
    const kinds = [...corpus.reduce((m, f) => m.set(f.kind, (m.get(f.kind) ?? 0) + 1), new Map<string, number>())].map(([k, n]) => `${n} ${k}`).join(', ');
    console.log(
      `matching corpus: ${corpus.length} files (${kinds}) from ${values.corpus} (${withNumber} with a readable invoice number of the account, ${corpus.filter((f) => Number(f.total) < 0).length} with a negative total), ` +
        `accounts of ${accounts.conflict.invoiceOf.size} invoices (${DISTRACTORS.length} short or separator distractors), channels ${CHANNELS.join(', ')}, ${os.cpus().length} CPUs`,
    );
    if (refusedNumbers.size) console.log(`invoice numbers the API refused (their files count as having none): ${[...refusedNumbers].join('; ')}`);
    console.log('\nchannel  names         files  right  wrong  refused  waiting  unrefused   not to attach');
    const { wrong, missed, wrongCount } = tallyVerdicts(uploads, CHANNELS, otherTotal);
    console.log(
      "\nright: attached to the invoice the file belongs to (meaningless names: its XML's number; conflict names: the name's invoice when the file holds no readable number).",
    );
    console.log(`wrong: attached to any other invoice. refused: failed with a reason. waiting: not settled ${WAIT_MS / 1000} s after the last upload.`);
    console.log("unrefused: name and XML point at different invoices and the file was attached to its XML's invoice instead of refused.");
    console.log(
      "not to attach: files of the row whose expected outcome is refused or waiting (no readable number; name and XML disagreeing; an e-invoice total that is not its invoice's).",
    );
    if (wrong.length) console.log(`\nwrong and unrefused:\n${wrong.join('\n')}`);
    if (missed.length)
      console.log(
        `\nnot attached although they should be (meaningless: by the invoice their XML names; conflict: by their exact name, having no invoice number inside):\n${missed.join('\n')}`,
      );
    const cpu = (clientCpu.user + clientCpu.system) / 1000;
    console.log(
      `\n${uploads.length} uploads in ${uploadSeconds.toFixed(1)} s, settled or bounded after ${seconds.toFixed(1)} s; client CPU (this process) ${(cpu / 1000).toFixed(1)} s, ` +
        `${((100 * cpu) / (seconds * 1000 * os.cpus().length)).toFixed(1)} % of the machine`,
    );
    // a reason is for people: a library's message in one is a failure of its own
    const leaked = uploads
      .filter((u) => u.record?.reason && LIBRARY_MESSAGE.test(u.record.reason))
      .map((u) => `  ${u.channel} "${u.name}" (${u.file.file}): ${u.record.reason}`);
    if (leaked.length) console.log(`\nreasons holding a library's message:\n${[...new Set(leaked)].join('\n')}`);
    console.log(`\nverdict: ${wrongCount} wrong, ${missed.length} not attached although they should be, ${leaked.length} reasons with a library's message`);
    if (wrongCount > 0 || missed.length > 0 || leaked.length > 0) process.exitCode = 1;
  } finally {
    service.signal('SIGTERM');
    await service.exited;
    await pgdb.drop();
    await redis.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
