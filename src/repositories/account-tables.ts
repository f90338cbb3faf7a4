// Every table that holds an account's rows (it has an account_id column), listed once with what the
// test-data purge (MaintenanceRepository.purgeTestData, TEST_DATA_RETENTION_DAYS) does with its
// test-mode rows: a `purge` statement of the core's tables, run in this list's order (children
// before their parents); `owner`, a table of another part that purges it itself, in the same
// transaction after the core's (MaintenanceService's `purges`); or `kept` and why. test/unit/account-tables.test.ts reads the migrations and names a table with
// an account_id column that this list misses, so a new resource's table cannot be forgotten here.

/** `$1` is the retention in days; CUTOFF the moment before which test data goes. */
const CUTOFF = `now() - make_interval(days => $1::int)`;
const OLD_TEST_INVOICES = `select id from invoices where mode = 'test' and created_at < ${CUTOFF}`;

export type TestDataRule = { purge: string } | { owner: string } | { kept: string };

export const ACCOUNT_TABLES: Record<string, TestDataRule> = {
  payments: { purge: `delete from payments where mode = 'test' and invoice_id in (${OLD_TEST_INVOICES})` },
  documents: { purge: `delete from documents where mode = 'test' and invoice_id in (${OLD_TEST_INVOICES})` },
  intake_staging: { owner: 'intake/test-data-repository.ts, after the documents of old test invoices are gone' },
  invoices: { purge: `delete from invoices where mode = 'test' and created_at < ${CUTOFF}` },
  // a test customer's invoices are test invoices: the mode lets the check read invoices_test_customer
  customers: {
    purge: `delete from customers c where mode = 'test' and created_at < ${CUTOFF} and not exists (select 1 from invoices i where i.customer_id = c.id and i.mode = 'test')`,
  },
  intake_records: { kept: 'goes with its intake_staging row (on delete cascade)' },
  intake_history: { kept: 'goes with its intake record (on delete cascade)' },
  api_keys: { kept: "the account's credentials, test mode's too" },
  upload_keys: { kept: 'credentials, revoked by their owners' },
  ssh_keys: { kept: 'credentials, removed by their owners' },
  api_key_uses: { kept: 'one row per key, mode, channel and address: bounded' },
  idempotency_keys: { kept: 'purged on their own expiry (idempotency.purge)' },
  mail_messages: { kept: 'purged after MAIL_RETENTION_DAYS (mail-claims.purge)' },
  mail_replies: { kept: "one per message, purged with the mail channel's retention" },
  webhooks: { kept: 'configuration: endpoints stay until deleted' },
  webhook_events: { kept: 'the outbox: settled events are the delivery log of their endpoint' },
  webhook_attempts: { kept: 'the delivery log, shown with its endpoint' },
  account_users: { kept: 'people, in both modes at once' },
  held_invites: { kept: 'invites waiting for their address, in both modes at once' },
  account_sender_policies: { kept: 'configuration, one row per mode' },
  trail_entries: { kept: 'purged after TRAIL_RETENTION_DAYS (trail.purge)' },
};
