// bench:scale's filler: a year of one account's data, written with generate_series straight into
// the service's own tables (migrated by the service itself), in slices so that no statement holds
// more than SLICE rows. Per level N:
//   N invoices (60 % paid), N/1000 customers (at least 10);
//   N received files (intake_staging + intake_records): 95 % attached to their invoice with a
//     document sharing the staged bytes, 5 % failed (not a PDF); none
//     pending (a pending file is minutes old in real use, and the reconciler would queue it);
//   2N history lines (received, then attached or failed);
//   N webhook events (import.attached / import.failed), each delivered once with one attempt;
//   N/100 test-mode invoices and files of the last 20 days (inside the test-data retention, so the
//     purge looks at them and keeps them), N/100 trail entries.
// One file (and invoice) every STEP_SECONDS, the newest now: every level has the same last day
// and week (about 144 and 1,000 files), and a larger level is a longer history, so a figure that
// grows is one that reads history, not one that counts a busier day (10^3 is a week, 10^5 two
// years, 10^7 190 years: dates nobody checks).
// Files point at their bytes as in use: an attached file and its document share one object, a
// failed file keeps its own for INTAKE_FAILED_RETENTION_DAYS (14) and then no more (dropped by the
// hourly retention, bytes_dropped_at set), so the retention reads the index it reads in use. The
// objects (document_objects) hold a few bytes each, not a PDF: the database size per file printed
// is the rows' and indexes' own, to which a deployment adds its PDFs' size.
import type pg from 'pg';

export interface FillTarget {
  accountId: string;
  webhookId: string;
  /** an owner of the account, the trail's actor */
  userId: string;
}

const SLICE = 500_000;
const STEP_SECONDS = 600;
/** INTAKE_FAILED_RETENTION_DAYS's default: a failed file older than this has had its bytes dropped */
const KEPT_FAILED_SECONDS = 14 * 86_400;

/** the newest rows, younger than KEPT_FAILED_SECONDS: rows n - YOUNG_ROWS + 1 .. n */
const YOUNG_ROWS = Math.ceil(KEPT_FAILED_SECONDS / STEP_SECONDS);

/** how many failed files (every 20th row) of 1..n are young, i.e. still keep their bytes */
function keptFailed(n: number): number {
  return Math.floor(n / 20) - Math.floor(Math.max(0, n - YOUNG_ROWS) / 20);
}

/** The rows the filler writes at level n, per table (what its unit test checks). */
export function fillCounts(n: number): Record<string, number> {
  const attached = Math.round(n * 0.95);
  const test = Math.floor(n / 100);
  return {
    customers: Math.max(10, Math.floor(n / 1000)) + Math.max(1, Math.floor(test / 100)),
    invoices: n + test,
    documents: attached,
    document_objects: attached + keptFailed(n),
    intake_staging: n + test,
    intake_records: n + test,
    intake_history: 2 * n + test,
    webhook_events: n,
    webhook_deliveries: n,
    webhook_attempts: n,
    trail_entries: Math.floor(n / 100),
  };
}

/** Runs `sql` (with $1 = first i, $2 = last i of the slice, $3.. = `params`) over 1..n in slices. */
async function sliced(client: pg.Client, n: number, sql: string, params: unknown[]): Promise<void> {
  for (let from = 1; from <= n; from += SLICE) await client.query(sql, [from, Math.min(n, from + SLICE - 1), ...params]);
}

/**
 * Fills the account to level n. Ids are the prefix, 'f' and the row number padded to the
 * service's 24 characters; the newest rows have the highest numbers (and seq), as in use.
 */
export async function fillAccount(client: pg.Client, t: FillTarget, n: number, log: (s: string) => void = () => {}): Promise<void> {
  const c = fillCounts(n);
  const customers = Math.max(10, Math.floor(n / 1000));
  const test = Math.floor(n / 100);
  const testCustomers = Math.max(1, Math.floor(test / 100));
  const id = (prefix: string, v = 'i') => `'${prefix}_f' || lpad(${v}::text, 19, '0')`;
  const tid = (prefix: string, v = 'i') => `'${prefix}_t' || lpad(${v}::text, 19, '0')`;
  // row i's moment: one every STEP_SECONDS before now, the newest last
  const at = (v = 'i') => `now() - make_interval(secs => (${n} - ${v}) * ${STEP_SECONDS}.0)`;
  const attached = (v = 'i') => `(${v} % 20 <> 0)`;
  // a file with bytes: attached (shared with its document), or failed within the retention
  const kept = (v = 'i') => `(${attached(v)} or ${n} - ${v} < ${YOUNG_ROWS})`;
  const object = (v = 'i') => `convert_to('F-' || ${v}, 'UTF8')`;
  const pointer = (v = 'i') => `case when ${kept(v)} then encode(sha256(${object(v)}), 'hex') end`;
  await client.query('set synchronous_commit = off');
  const step = async (what: string, fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    log(`  ${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await step(`customers ${customers}`, () =>
    sliced(
      client,
      customers,
      `insert into customers (id, account_id, mode, customer_code, name, created_at) select ${id('cst')}, $3, 'live', 'F-' || i, 'Customer ' || i, now() - interval '1 year' from generate_series($1::int, $2::int) i`,
      [t.accountId],
    ),
  );
  await step(`invoices ${n}`, () =>
    sliced(
      client,
      n,
      `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status, document_id, created_at, updated_at)
     select ${id('inv')}, $3, 'live', 'cst_f' || lpad((1 + i % ${customers})::text, 19, '0'), 'F-' || i, (${at()})::date, (${at()})::date + 30,
            10000 + i % 90000, case when i % 5 < 3 then 0 else 10000 + i % 90000 end, case when i % 5 < 3 then 'paid' else 'open' end,
            case when ${attached()} then ${id('doc')} end, ${at()}, ${at()}
     from generate_series($1::int, $2::int) i`,
      [t.accountId],
    ),
  );
  await step(`document_objects ${c.document_objects}`, () =>
    sliced(
      client,
      n,
      // put at the fill (younger than DOCUMENT_SWEEP_GRACE_HOURS): the service's first documents.sweep,
      // at its start, would otherwise check every object while the intake is measured
      `insert into document_objects (sha256, size, content)
     select encode(sha256(${object()}), 'hex'), length(${object()}), ${object()} from generate_series($1::int, $2::int) i where ${kept()}`,
      [],
    ),
  );
  await step(`intake_staging ${n}`, () =>
    sliced(
      client,
      n,
      `insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, content_sha256, received_at)
     select ${id('imp')}, $3, 'live', (array['ftp','http','mail','sftp'])[1 + i % 4], 'scanner@example.com', 'F-' || i || '.pdf', 100000, md5(i::text), ${pointer()}, ${at()}
     from generate_series($1::int, $2::int) i`,
      [t.accountId],
    ),
  );
  await step(`intake_records ${n}`, () =>
    sliced(
      client,
      n,
      `insert into intake_records (id, account_id, mode, status, match_name, invoice_id, document_id, reason, reason_code, reason_params, matched_by, updated_at, attached_at, bytes_dropped_at)
     select ${id('imp')}, $3, 'live', case when ${attached()} then 'attached' else 'failed' end, 'F-' || i,
            case when ${attached()} then ${id('inv')} end, case when ${attached()} then ${id('doc')} end,
            case when ${attached()} then null else 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' end,
            case when ${attached()} then null else 'file_not_pdf' end, case when ${attached()} then null else '{}'::jsonb end,
            case when ${attached()} then 'invoice_number' end, ${at()} + interval '2 seconds', case when ${attached()} then ${at()} + interval '2 seconds' end,
            case when not ${kept()} then ${at()} + make_interval(secs => ${KEPT_FAILED_SECONDS}) end
     from generate_series($1::int, $2::int) i`,
      [t.accountId],
    ),
  );
  await step(`documents ${c.documents}`, () =>
    sliced(
      client,
      n,
      `insert into documents (id, account_id, mode, invoice_id, filename, media_type, size, sha256, content_sha256, source, staged_id, matched_by, created_at)
     select ${id('doc')}, $3, 'live', ${id('inv')}, 'F-' || i || '.pdf', 'application/pdf', 100000, md5(i::text), ${pointer()}, 'ftp', ${id('imp')}, 'invoice_number', ${at()} + interval '2 seconds'
     from generate_series($1::int, $2::int) i where ${attached()}`,
      [t.accountId],
    ),
  );
  await step(`intake_history ${2 * n}`, () =>
    sliced(
      client,
      n,
      `insert into intake_history (intake_id, account_id, mode, at, status, reason, reason_code, reason_params)
     select ${id('imp')}, $3, 'live', ${at()} + h.d, h.status, h.reason, h.code, h.params
     from generate_series($1::int, $2::int) i cross join lateral (values
       (interval '0 seconds', 'received', null::text, null::text, null::jsonb),
       (interval '2 seconds', case when ${attached()} then 'attached' else 'failed' end,
        case when ${attached()} then null else 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file' end,
        case when ${attached()} then null else 'file_not_pdf' end, case when ${attached()} then null else '{}'::jsonb end)) h(d, status, reason, code, params)`,
      [t.accountId],
    ),
  );
  await step(`webhook events, deliveries, attempts ${n} each`, async () => {
    await sliced(
      client,
      n,
      `insert into webhook_events (id, account_id, mode, type, body, created_at, dispatched_at)
       select ${id('evt')}, $3, 'live', case when ${attached()} then 'import.attached' else 'import.failed' end,
              '{"id":"' || ${id('evt')} || '","type":"' || case when ${attached()} then 'import.attached' else 'import.failed' end || '","data":{"import":"' || ${id('imp')} || '"}}', ${at()} + interval '2 seconds', ${at()} + interval '2 seconds'
       from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      n,
      `insert into webhook_deliveries (event_id, webhook_id, state, updated_at) select ${id('evt')}, $3, 'delivered', ${at()} + interval '3 seconds' from generate_series($1::int, $2::int) i`,
      [t.webhookId],
    );
    await sliced(
      client,
      n,
      `insert into webhook_attempts (id, account_id, mode, webhook_id, event_id, event_type, attempted_at, status_code, duration_ms, response, success)
       select ${id('dlv')}, $3, 'live', $4, ${id('evt')}, case when ${attached()} then 'import.attached' else 'import.failed' end, ${at()} + interval '3 seconds', 200, 40, 'ok', true
       from generate_series($1::int, $2::int) i`,
      [t.accountId, t.webhookId],
    );
  });
  await step(`test mode ${test} invoices and files, trail ${c.trail_entries}`, async () => {
    // test data of the last 20 days: inside TEST_DATA_RETENTION_DAYS (30), so the purge keeps it
    const recent = (v = 'i') => `now() - make_interval(secs => (${Math.max(1, test)} - ${v}) * (1728000.0 / ${Math.max(1, test)}))`;
    await sliced(
      client,
      testCustomers,
      `insert into customers (id, account_id, mode, customer_code, name, created_at) select ${tid('cst')}, $3, 'test', 'T-' || i, 'Test ' || i, now() - interval '20 days' from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      test,
      `insert into invoices (id, account_id, mode, customer_id, invoice_number, invoice_date, invoice_duedate, total_cents, balance_cents, status, created_at, updated_at)
       select ${tid('inv')}, $3, 'test', 'cst_t' || lpad((1 + i % ${testCustomers})::text, 19, '0'), 'T-' || i, (${recent()})::date, (${recent()})::date + 30, 100, 100, 'open', ${recent()}, ${recent()}
       from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      test,
      `insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, received_at)
       select ${tid('imp')}, $3, 'test', 'http', 'api', 'T-' || i || '.pdf', 1000, md5(i::text), ${recent()} from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      test,
      // no bytes (content_sha256 null): marked by the retention once past it, as in use
      `insert into intake_records (id, account_id, mode, status, match_name, reason, reason_code, reason_params, updated_at, bytes_dropped_at)
       select ${tid('imp')}, $3, 'test', 'failed', 'T-' || i, 'The file is not a PDF (no %PDF- header); send the invoice as a PDF file', 'file_not_pdf', '{}'::jsonb, ${recent()},
              case when ${recent()} < now() - make_interval(secs => ${KEPT_FAILED_SECONDS}) then ${recent()} + make_interval(secs => ${KEPT_FAILED_SECONDS}) end
       from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      test,
      `insert into intake_history (intake_id, account_id, mode, at, status) select ${tid('imp')}, $3, 'test', ${recent()}, 'failed' from generate_series($1::int, $2::int) i`,
      [t.accountId],
    );
    await sliced(
      client,
      c.trail_entries,
      `insert into trail_entries (id, account_id, mode, at, actor_kind, actor_id, actor_label, action, target)
       select ${id('trl')}, $3, 'live', ${at(`(i * 100)`)}, 'person', $4, 'owner@example.com', 'import.retried', ${id('imp', '(i * 100)')} from generate_series($1::int, $2::int) i`,
      [t.accountId, t.userId],
    );
  });
  await step('vacuum analyze', () => client.query('vacuum analyze').then(() => {}));
}
