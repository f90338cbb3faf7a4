// Real inputs through the real service (roles api, worker, ftp; FTPS with a self-signed
// certificate): the e-invoice PDFs of test/fixtures/einvoice (public sample collections; where each
// came from: test/fixtures/MANIFEST.md), sent by POST /v2/imports and over FTPS under real
// meaningless names (test/fixtures/names) and under the exact name of another existing invoice.
// The invoice each file belongs to is expected.tsv, read from the PDFs by qpdf and xmllint, not by
// our code. The account also holds the short numbers accounting systems use (2024, 0815, 000123,
// 0001, 0123) and INV-000123, RE/2024/0816, so that counters and dates in names meet numbers they
// could be mistaken for. The same measurement over the whole corpus: npm run corpus:matching.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../testkit/paths.ts';
import { pollFor } from '../../testkit/wait.ts';
import { connectFtp, intakeIdOf, upload } from '../ftp/ftp-clients.ts';
import { ftpTestFile } from '../ftp/ftp-harness.ts';

const DIR = path.join(ROOT, 'test/fixtures/einvoice');
const DISTRACTORS = ['2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816'];

interface Fixture { file: string; expected: string | null; kind: string; otherId: string | null; total: string | null; bytes: Buffer }
const fixtures: Fixture[] = fs.readFileSync(path.join(DIR, 'expected.tsv'), 'utf8').split('\n').slice(1).filter(Boolean).map((line) => {
  const [file, expected, kind, otherId, total] = line.split('\t');
  return { file, expected: expected || null, kind, otherId: otherId || null, total: total || null, bytes: fs.readFileSync(path.join(DIR, file)) };
});
/**
 * Each invoice's total: that of the first fixture with its number (several samples share a number
 * with other totals: against this account each of those is another invoice of the same number, which
 * the e-invoice's totals check refuses, naming both amounts).
 */
const totalOf = new Map<string, string>();
// (a negative total, a correction's, is no invoice total the API takes: such an invoice gets 100.00)
for (const f of fixtures) if (f.expected && f.total && Number(f.total) >= 0 && !totalOf.has(f.expected)) totalOf.set(f.expected, Number(f.total).toFixed(2));
const sameTotal = (f: Fixture) => !f.expected || !f.total || Number(totalOf.get(f.expected) ?? '100.00') === Number(f.total);
/** file-names.tsv's names that are no evidence for any invoice of this account, sent as PDFs */
const meaningless = fs.readFileSync(path.join(ROOT, 'test/fixtures/names/file-names.tsv'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')).filter(([, , m]) => m === 'yes')
  .map(([name]) => (/\.pdf$/i.test(name) ? name : `${name.replace(/\.[^.]+$/, '')}.pdf`));

type Channel = 'http' | 'ftp';
interface Sent { fixture: Fixture; channel: Channel; account: Account; name: string; nameInvoice?: string; record?: any }

const t = ftpTestFile();
type Account = { ftpUsername: string; liveKey: string; invoiceOf: Map<string, string>; numberOf: Map<string, string> };
// one account per kind of run, the same invoices in both: a document attached by its exact name in
// a conflict run must not stand in the way of (or race) the e-invoice matches of the other run
const accounts: Record<'meaningless' | 'conflict', Account> = {} as never;
const meaninglessRuns: Sent[] = [];
const conflictRuns: Sent[] = [];

const own = (s: Sent) => (s.fixture.expected ? s.account.invoiceOf.get(s.fixture.expected) : undefined);
const describeSent = (s: Sent) => `${s.channel} "${s.name}" (${s.fixture.file}, XML ${s.fixture.expected ?? 'none'}): ${s.record?.status}`
  + `${s.record?.invoice ? ` to ${s.account.numberOf.get(s.record.invoice)} by ${s.record.matchedBy}` : ''}${s.record?.reason ? `: ${s.record.reason}` : ''}`;
/**
 * a PDF whose cross-reference table is broken (qpdf rebuilds it; not every reader does), or whose
 * XML declaration names an encoding that does not exist: attaching to its own invoice and refusing
 * it with a reason are both right
 */
const tolerated = (s: Sent) => /\((damaged|bad XML declaration)/.test(s.fixture.kind);

async function makeAccount(first?: { ftpUsername: string; liveKey: string }): Promise<Account> {
  const a = first ?? (await t.ftpAccount());
  const account: Account = { ftpUsername: a.ftpUsername, liveKey: a.liveKey, invoiceOf: new Map(), numberOf: new Map() };
  // the numbers of the fixtures, of the orders among them (an order's number may be an invoice's), and the distractors
  const customer = (await t.request('POST', '/v2/customers', { key: a.liveKey, body: { customerCode: 'CORPUS-1', name: 'Corpus GmbH' } })).body;
  for (const n of new Set([...fixtures.flatMap((f) => [f.expected, f.otherId]).filter((n): n is string => n !== null), ...DISTRACTORS])) {
    const res = await t.request('POST', '/v2/invoices', {
      key: a.liveKey, body: { customer: customer.id, invoiceNumber: n, invoiceDate: '01-02-2026', invoiceDuedate: '01-03-2026', invoiceTotal: totalOf.get(n) ?? '100.00' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    account.invoiceOf.set(n, res.body.id);
    account.numberOf.set(res.body.id, n);
  }
  return account;
}

async function send(runs: Sent[]): Promise<void> {
  const ids = new Map<Sent, string>();
  for (const s of runs.filter((x) => x.channel === 'http')) {
    const res = await t.request('POST', '/v2/imports', { key: s.account.liveKey, body: { Filename: s.name, Content: s.fixture.bytes.toString('base64') } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    ids.set(s, res.body.id);
  }
  const client = await connectFtp(t.port, runs[0].account.ftpUsername, runs[0].account.liveKey);
  try {
    for (const s of runs.filter((x) => x.channel === 'ftp')) ids.set(s, intakeIdOf((await upload(client, s.name, s.fixture.bytes)).message));
  } finally {
    client.close();
  }
  // settled (attached or failed); a file that has no invoice to go to may wait instead
  await Promise.all(runs.map(async (s) => {
    const mayWait = !own(s) && !s.nameInvoice;
    s.record = await t.waitFor(s.account.liveKey, ids.get(s)!, (r) => r.status === 'attached' || r.status === 'failed' || (mayWait && r.status === 'waiting'), 90_000);
  }));
}

beforeAll(async () => {
  // fixtures and names are what the assertions below count on
  expect(fixtures.length).toBeGreaterThanOrEqual(25);
  expect(meaningless.length).toBeGreaterThanOrEqual(fixtures.length);
  accounts.meaningless = await makeAccount(t.account);
  accounts.conflict = await makeAccount();
  const conflict = accounts.conflict;
  const numbers = [...conflict.invoiceOf.keys()].sort();
  fixtures.forEach((fixture, i) => {
    const others = numbers.filter((n) => n !== fixture.expected);
    const other = others[(i * 7 + 3) % others.length];
    // the exact number as the name; the invoice id where the number has a slash (no FTP file name can)
    const name = other.includes('/') ? `${conflict.invoiceOf.get(other)}.pdf` : `${other}.pdf`;
    for (const channel of ['http', 'ftp'] as Channel[]) {
      meaninglessRuns.push({ fixture, channel, account: accounts.meaningless, name: meaningless[i] });
      conflictRuns.push({ fixture, channel, account: conflict, name, nameInvoice: conflict.invoiceOf.get(other) });
    }
  });
  await Promise.all([send(meaninglessRuns), send(conflictRuns)]);
}, 300_000);

describe('real e-invoice PDFs under meaningless names (HTTP and FTPS)', () => {
  it('no file is attached to an invoice other than its own', () => {
    const wrong = meaninglessRuns.filter((s) => s.record.status === 'attached' && s.record.invoice !== own(s));
    expect(wrong.map(describeSent)).toEqual([]);
  });

  it('every fixture whose invoice number is readable attaches to that invoice, by its e-invoice', () => {
    const withNumber = meaninglessRuns.filter((s) => own(s) && !tolerated(s) && sameTotal(s.fixture));
    expect(withNumber.length).toBeGreaterThanOrEqual(2 * 20);
    const missed = withNumber.filter((s) => s.record.status !== 'attached' || s.record.invoice !== own(s) || s.record.matchedBy !== 'einvoice');
    expect(missed.map(describeSent)).toEqual([]);
  });

  it("a fixture whose e-invoice's total is not its invoice's total is refused, naming both amounts", () => {
    const otherTotal = meaninglessRuns.filter((s) => own(s) && !sameTotal(s.fixture));
    expect(otherTotal.length).toBeGreaterThanOrEqual(2 * 2);
    const missed = otherTotal.filter((s) => s.record.status !== 'failed' || !/^The e-invoice says invoice .* with a total of .*; the invoice's total is /.test(String(s.record.reason)));
    expect(missed.map(describeSent)).toEqual([]);
  });

  it('a damaged PDF, or a bad XML declaration, attaches to its own invoice or is refused with a reason', () => {
    const broken = meaninglessRuns.filter(tolerated);
    expect(broken.length).toBe(2 * 2);
    const neither = broken.filter((s) => !(s.record.status === 'attached' && s.record.invoice === own(s)) && !(s.record.status === 'failed' && s.record.reason));
    expect(neither.map(describeSent)).toEqual([]);
  });

  it('a fixture without a readable invoice number is never attached', () => {
    const none = meaninglessRuns.filter((s) => !own(s));
    expect(none.length).toBeGreaterThanOrEqual(2 * 5);
    expect(none.filter((s) => s.record.status === 'attached').map(describeSent)).toEqual([]);
  });
});

/** the reason names the invoice the file's name points at (by its number, or its id when that was the name) */
const named = (reason: string, s: Sent) => reason.includes(s.account.numberOf.get(s.nameInvoice!)!) || reason.includes(s.nameInvoice!);

describe('real e-invoice PDFs named after another existing invoice (HTTP and FTPS)', () => {
  it('no file is attached to the invoice its name points at when its e-invoice says another', () => {
    const wrong = conflictRuns.filter((s) => own(s) && s.record.status === 'attached' && s.record.invoice !== own(s));
    expect(wrong.map(describeSent)).toEqual([]);
  });

  it('name and e-invoice disagreeing is a refusal whose reason names both numbers', () => {
    // (a damaged PDF may be refused as unreadable instead: that it goes to no wrong invoice is the test above)
    const disagreeing = conflictRuns.filter((s) => own(s) && !tolerated(s));
    expect(disagreeing.length).toBeGreaterThanOrEqual(2 * 20);
    const notRefused = disagreeing.filter((s) => s.record.status !== 'failed'
      || !String(s.record.reason).includes(s.fixture.expected!) || !named(String(s.record.reason), s));
    expect(notRefused.map(describeSent)).toEqual([]);
  });

  it('a PDF without invoice evidence inside (no XML, an Order-X or an order) attaches by its exact name', () => {
    const byName = conflictRuns.filter((s) => s.fixture.kind === 'no-xml' || s.fixture.kind.startsWith('not-invoice'));
    expect(byName.length).toBeGreaterThanOrEqual(2 * 4);
    const missed = byName.filter((s) => s.record.status !== 'attached' || s.record.invoice !== s.nameInvoice);
    expect(missed.map(describeSent)).toEqual([]);
  });

  it('a file that is no PDF is refused whatever its name says', () => {
    const broken = conflictRuns.filter((s) => s.fixture.kind === 'pdf-unreadable');
    expect(broken.length).toBe(2);
    expect(broken.filter((s) => s.record.status !== 'failed').map(describeSent)).toEqual([]);
  });
});
