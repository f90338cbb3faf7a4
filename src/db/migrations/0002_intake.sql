-- Intake: every file received by FTP, e-mail or POST /v2/imports. intake_staging is the file as
-- received (immutable except that its bytes are dropped once they live in documents);
-- intake_records is its state in the pipeline. The database is the source of truth: Redis
-- only schedules, and the reconciler rebuilds jobs from the pending records here.

create table intake_staging (
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  channel text not null check (channel in ('ftp', 'mail', 'http')),
  sender text not null,
  filename text not null,
  size integer not null,
  sha256 text not null,
  content bytea,
  trace_id text,
  received_at timestamptz not null default now()
);

-- PDFs are compressed already: store staged bytes as they are (no pglz attempt on every file)
alter table intake_staging alter column content set storage external;

create table intake_records (
  seq bigint generated always as identity,
  id text primary key references intake_staging(id) on delete cascade,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  status text not null check (status in ('received', 'waiting', 'attached', 'failed')),
  -- the file name after normalisation (NFC, no .pdf): what is matched against invoices
  match_name text,
  invoice_id text,
  document_id text,
  reason text,
  updated_at timestamptz not null default now(),
  attached_at timestamptz
);
create index intake_records_list on intake_records (account_id, mode, seq desc);
create index intake_records_status on intake_records (account_id, mode, status, seq desc);
create index intake_records_pending on intake_records (seq) where status in ('received', 'waiting');
create index intake_records_pending_name on intake_records (account_id, mode, lower(match_name)) where status in ('received', 'waiting');
