-- Issue 45 (bench:scale): reads that walked an account's whole history at 10^5-10^6 rows.
-- Built inside the migration's transaction (no CONCURRENTLY): on a large installation the start
-- that applies it holds these tables for the build (29 s at 10^6 files on 2 busy cores).

-- The dashboard's overview counts the last 24 hours and 7 days, and the files list filters by
-- period: by the time a file was received, from the newest, instead of every record of the account.
create index intake_staging_received on intake_staging (account_id, mode, received_at);

-- Open invoices without a document (the dashboard's invoices page, a file's "assign to" list):
-- few, and the newest 200 of them, instead of every invoice of the account until 200 are found.
create index invoices_open_without_document on invoices (account_id, mode, seq desc)
  where status = 'open' and document_id is null and deleted_at is null;

-- The test-data purge (hourly) looks for test rows past their retention in every account: test
-- rows only, by age, instead of every live invoice, file, customer and document.
create index invoices_test_age on invoices (created_at) where mode = 'test';
create index intake_staging_test_age on intake_staging (received_at) where mode = 'test';
create index customers_test_age on customers (created_at) where mode = 'test';
create index documents_test_invoice on documents (invoice_id) where mode = 'test';

-- The dashboard's search (and an invoice's page, which searches for its number) matches a text
-- anywhere in file names and invoice numbers: trigram indexes find those rows, instead of a walk
-- of every file of the account for a rare text. pg_trgm is a trusted extension (PostgreSQL 13+):
-- the database's owner may create it; PGlite loads it (src/db/pglite.ts).
create extension if not exists pg_trgm;
create index intake_staging_filename_trgm on intake_staging using gin (lower(filename) gin_trgm_ops);
create index invoices_number_trgm on invoices using gin (lower(invoice_number) gin_trgm_ops);
-- the files attached to (or tried on) an invoice, from the invoice
create index intake_records_invoice on intake_records (invoice_id) where invoice_id is not null;
-- (and whether an old test customer still has an invoice, from the customer)
create index invoices_test_customer on invoices (customer_id) where mode = 'test';
