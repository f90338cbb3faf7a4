// A lookup of one row by its key (id, invoice number, customer code, an intake file's name) reads
// only that row, however many rows the account has. Without planner statistics PostgreSQL may walk
// a whole index of the account, or of the table, and filter: the service analyzes tables that grew
// (MaintenanceService.refreshStatistics), and lookups by id are written so that an account that
// grew since the last analyze still gets the primary key (scopeWhereId). Each statement the repositories send is run
// again under EXPLAIN ANALYZE, which counts the rows every plan node read and threw away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/database.ts';
import { randomToken } from '../../src/domain/ids.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { createRepositories } from '../../src/repositories/repositories.ts';
import { pageScoped } from '../../src/repositories/scoped.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { plainReason } from '../../src/domain/intake-reasons.ts';

const ROWS = 600;
const TABLES = ['customers', 'documents', 'intake_records', 'intake_staging', 'invoices'];
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ config: { analyzeIntervalMs: 0 } });
  // the test decides when statistics are taken: autovacuum must not analyze meanwhile
  for (const table of TABLES) await t.db.query(`alter table ${table} set (autovacuum_enabled = false)`);
});
afterAll(() => t?.close());

/** An account with ROWS customers, invoices (each with a document) and waiting intake files. */
async function filledAccount(): Promise<Scope> {
  const acct = await t.createAccount();
  const scope: Scope = { accountId: acct.id, mode: 'live' };
  const p = [scope.accountId, scope.mode, acct.id.slice(-6)];
  const rows = `from generate_series(1, ${ROWS}) i`;
  await t.db.query(`insert into customers (id, account_id, mode, customer_code, name) select 'cus_' || $3 || i, $1, $2, 'C-' || i, 'Customer' ${rows}`, p);
  await t.db.query(
    `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status)
     select 'inv_' || $3 || i, $1, $2, 'cus_' || $3 || '1', 'INV-' || i, '2026-01-01', '2026-02-01', 100, 100, 'open' ${rows}`,
    p,
  );
  await t.db.query(
    `insert into documents (id, account_id, mode, invoice_id, filename, media_type, size, sha256) select 'doc_' || $3 || i, $1, $2, 'inv_' || $3 || i, 'f.pdf', 'application/pdf', 1, 'x' ${rows}`,
    p,
  );
  await t.db.query(
    `insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256) select 'imp_' || $3 || i, $1, $2, 'http', 's', 'INV-' || i || '.pdf', 1, 'x' ${rows}`,
    p,
  );
  await t.db.query(`insert into intake_records (id, account_id, mode, status, match_name) select 'imp_' || $3 || i, $1, $2, 'waiting', 'INV-' || i ${rows}`, p);
  return scope;
}

/** Rows that the scans and joins of a plan read and discarded (a filter on a CTE's own rows is neither). */
const discarded = (node: any): number =>
  (node['Relation Name'] ? (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0) : 0) +
  (node['Rows Removed by Join Filter'] ?? 0) +
  (node.Plans ?? []).reduce((n: number, p: any) => n + discarded(p), 0);

const ROLLBACK = new Error('rollback');
/** Runs `fn` in a transaction that is rolled back, so that a call changes nothing. */
const rolledBack = (fn: (q: Queryable) => Promise<unknown>) =>
  t.db
    .transaction(async (tx) => (await fn(tx), Promise.reject(ROLLBACK)))
    .catch((e) => {
      if (e !== ROLLBACK) throw e;
    });

/**
 * Runs `fn` against a recorder, then each statement it sent, in order, under EXPLAIN ANALYZE (each
 * sees what the statements before it did; both runs are rolled back): rows discarded per statement.
 */
async function rowsDiscarded(fn: (q: Queryable) => Promise<unknown>): Promise<{ sql: string; discarded: number }[]> {
  const sent: { sql: string; params?: unknown[] }[] = [];
  await rolledBack((tx) => fn({ query: (sql, params) => (sent.push({ sql, params }), tx.query(sql, params)) }));
  expect(sent.length).toBeGreaterThan(0);
  const out: { sql: string; discarded: number }[] = [];
  await rolledBack(async (tx) => {
    for (const s of sent) {
      const raw = (await tx.query(`explain (analyze, format json) ${s.sql}`, s.params))[0]['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan;
      out.push({ sql: s.sql.replace(/\s+/g, ' ').slice(0, 100), discarded: discarded(plan) });
    }
  });
  return out;
}

/** Every lookup by key of the repositories, on row 300 of the account. */
function keyLookups(scope: Scope): [string, (q: Queryable) => Promise<unknown>][] {
  const { invoices: invoiceRepository, customers: customerRepository, documents: documentRepository } = createRepositories();
  const { intake: intakeRepository, waitingFiles: waitingFilesRepository } = t.c.intakeRepos;
  const n = `${scope.accountId.slice(-6)}300`;
  return [
    ['invoice by id', (q) => invoiceRepository.find(q, scope, `inv_${n}`)],
    ['invoice by id, for update', (q) => invoiceRepository.find(q, scope, `inv_${n}`, true)],
    ['invoice by number', (q) => invoiceRepository.findByNumber(q, scope, 'INV-300')],
    ['invoice by number, case folded', (q) => invoiceRepository.findByNumber(q, scope, 'inv-300')],
    ['invoice numbers among the tokens of a name', (q) => invoiceRepository.findNumbers(q, scope, ['Factuur', 'inv-300', 'Factuur INV-300', '2026'])],
    ['invoice update', (q) => invoiceRepository.update(q, scope, `inv_${n}`, { documentId: null })],
    ['customer by id', (q) => customerRepository.find(q, scope, `cus_${n}`)],
    ['customer by code', (q) => customerRepository.findByCode(q, scope, 'C-300')],
    ['document of an invoice', (q) => documentRepository.findCurrentForInvoice(q, scope, `inv_${n}`)],
    ['document content by id', (q) => documentRepository.content(q, scope, `doc_${n}`)],
    [
      'document attach',
      (q) =>
        documentRepository.attach(q, scope, {
          id: `doc_${randomToken(8)}`,
          invoiceId: `inv_${n}`,
          filename: 'f.pdf',
          mediaType: 'application/pdf',
          size: 3,
          sha256: randomToken(8),
          source: 'api',
          matchedBy: null,
          original: null,
          content: { sha256: 'a'.repeat(64) },
        }),
    ],
    ['intake record with its staged file', (q) => intakeRepository.loadStaged(q, scope, `imp_${n}`)],
    ['intake record marked waiting', (q) => intakeRepository.markWaiting(q, scope, `imp_${n}`, plainReason('waiting'))],
    [
      'invoice insert, and the intake files waiting for its number',
      async (q) => {
        await invoiceRepository.markDeleted(q, scope, `inv_${n}`); // frees the number INV-300, which a file waits for
        const fields = { invoiceDate: '2026-01-01', invoiceDuedate: '2026-02-01', totalCents: 1, balanceCents: 1, status: 'open' as const };
        const created = await invoiceRepository.insertForCustomer(q, scope, {
          id: `inv_${randomToken(8)}`,
          customerId: `cus_${n}`,
          invoiceNumber: 'INV-300',
          ...fields,
        });
        expect(await waitingFilesRepository.naming(q, [{ scope, invoice: created! }])).toEqual([[`imp_${n}`]]);
      },
    ],
    ['intake record marked attached', (q) => intakeRepository.markAttached(q, scope, `imp_${n}`, `inv_${n}`, `doc_${n}`, null, 'invoice_number')],
    ['a list page from a cursor', (q) => pageScoped(q, { table: 'invoices', columns: 't.id', tombstones: true }, scope, { from: `inv_${n}`, limit: 2 })],
  ];
}

async function expectOnlyTheirRows(scope: Scope, which = /./): Promise<void> {
  for (const [name, fn] of keyLookups(scope).filter(([name]) => which.test(name))) {
    for (const { sql, discarded } of await rowsDiscarded(fn)) expect({ name, sql, discarded }).toEqual({ name, sql, discarded: 0 });
  }
}

describe('lookups by key', () => {
  it('the statistics refresh analyzes the tables that grew, and only those', async () => {
    await filledAccount();
    const refreshed = await t.c.maintenance.refreshStatistics();
    expect(refreshed).toEqual(expect.arrayContaining(TABLES));
    expect(await t.c.maintenance.refreshStatistics()).toEqual([]);
  });

  it('with statistics, read only their row', async () => {
    const scope = await filledAccount();
    await t.c.maintenance.refreshStatistics();
    await expectOnlyTheirRows(scope);
  });

  it('by id, of an account that grew as much again since the last analyze, still read only their row', async () => {
    await t.c.maintenance.refreshStatistics();
    await expectOnlyTheirRows(await filledAccount(), /by id|update|attach|marked|staged file|cursor/);
  });
});
