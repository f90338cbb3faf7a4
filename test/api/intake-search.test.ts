// The dashboard's file search and period (ImportListRepository.search, counts) read through the
// indexes of migration 0027 (trigram, received_at) and still mean what they meant: a text anywhere
// in the file name or the invoice's number, any case, its % _ and \ taken literally; a period by
// the time a file was received. On PGlite and on PostgreSQL.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { ImportListRepository } from '../../src/intake/import-list-repository.ts';
import { openTestDatabase } from '../helpers/database.ts';

let db: Database;
let repo: ImportListRepository;
const scope = { accountId: 'acc_search', mode: 'live' as const };

beforeAll(async () => {
  db = await openTestDatabase();
  repo = new ImportListRepository();
  await migrate(db);
  await db.query(
    `insert into accounts (id, name, ftp_username, import_token_live, import_token_test) values ('acc_search', 's', 's', 'l', 't'), ('acc_other', 'o', 'o', 'l2', 't2')`,
  );
  await db.query(`insert into customers (id, account_id, mode, customer_code, name) values ('cst_s', 'acc_search', 'live', 'C', 'C')`);
  await db.query(
    `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status) values ('inv_s', 'acc_search', 'live', 'cst_s', 'RE-2026_77', '2026-01-01', '2026-02-01', 1, 1, 'open')`,
  );
  const files: [string, string, string, string, string | null][] = [
    ['imp_a', 'acc_search', 'Scan 0001.pdf', '1 hour', 'inv_s'],
    ['imp_b', 'acc_search', 'RE-2026x77.pdf', '2 days', null],
    ['imp_c', 'acc_search', '100% paid.PDF', '10 days', null],
    ['imp_d', 'acc_other', 'RE-2026_77.pdf', '1 hour', null],
  ];
  for (const [id, account, name, age, invoice] of files) {
    await db.query(
      `insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, received_at) values ($1, $2, 'live', 'http', 'api', $3, 1, 'x', now() - $4::interval)`,
      [id, account, name, age],
    );
    await db.query(`insert into intake_records (id, account_id, mode, status, invoice_id) values ($1, $2, 'live', $3, $4)`, [
      id,
      account,
      invoice ? 'attached' : 'failed',
      invoice,
    ]);
  }
});

afterAll(() => db?.close());

const ids = async (f: Parameters<ImportListRepository['search']>[2]) => (await repo.search(db, scope, f)).map((r) => r.id);

test('a text is found anywhere in a file name or in the number of the invoice a file went to, in any case', async () => {
  expect(await ids({ text: 'scan 00', limit: 50 })).toEqual(['imp_a']);
  expect(await ids({ text: 're-2026_77', limit: 50 })).toEqual(['imp_a']);
  expect(await ids({ text: '2026', limit: 50 })).toEqual(['imp_b', 'imp_a']); // newest first
  expect(await ids({ text: 'pdf', limit: 1 })).toEqual(['imp_c']);
});

test('% _ and \\ in the text are characters, not patterns; another account is never searched', async () => {
  expect(await ids({ text: '2026_77', limit: 50 })).toEqual(['imp_a']);
  expect(await ids({ text: '100%', limit: 50 })).toEqual(['imp_c']);
  expect(await ids({ text: '%', limit: 50 })).toEqual(['imp_c']);
  expect(await ids({ text: '\\', limit: 50 })).toEqual([]);
});

test('a period by the time a file was received, with a text, a status and a cursor', async () => {
  const day = new Date(Date.now() - 24 * 3_600_000);
  const week = new Date(Date.now() - 7 * 24 * 3_600_000);
  expect(await ids({ since: day, limit: 50 })).toEqual(['imp_a']);
  expect(await ids({ since: week, limit: 50 })).toEqual(['imp_b', 'imp_a']);
  expect(await ids({ since: week, status: 'failed', text: '77', limit: 50 })).toEqual(['imp_b']);
  expect(await ids({ since: week, after: 'imp_b', limit: 50 })).toEqual(['imp_a']);
  const counts = await repo.counts(db, scope, week);
  expect(counts.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
    { channel: 'http', status: 'attached', count: 1 },
    { channel: 'http', status: 'failed', count: 1 },
  ]);
});
