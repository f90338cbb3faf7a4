-- Core invoicing schema. Every business row carries account_id and mode; `seq` orders lists
-- (newest first) and makes the `from` cursor stable; deleted_at keeps tombstones for 410.

create table accounts (
  id text primary key,
  name text not null,
  ftp_username text not null unique,
  import_token_live text not null unique,
  import_token_test text not null unique,
  created_at timestamptz not null default now()
);

create table api_keys (
  hash text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  hint text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_active on api_keys (account_id, mode) where revoked_at is null;

create table customers (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  customer_code text not null,
  name text not null,
  address text,
  postalcode text,
  city text,
  country text not null default 'NL',
  contact text,
  phone text,
  mobile text,
  email text,
  invoice_email text,
  registration_number text,
  language text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index customers_code on customers (account_id, mode, customer_code) where deleted_at is null;
create index customers_list on customers (account_id, mode, seq desc) where deleted_at is null;

create table invoices (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  customer_id text not null references customers(id),
  invoice_number text not null,
  invoice_date date not null,
  invoice_duedate date not null,
  total_cents bigint not null,
  balance_cents bigint not null,
  status text not null check (status in ('concept', 'open', 'paid', 'cancelled')),
  document_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index invoices_number on invoices (account_id, mode, invoice_number) where deleted_at is null;
create index invoices_number_ci on invoices (account_id, mode, lower(invoice_number)) where deleted_at is null;
create index invoices_list on invoices (account_id, mode, seq desc) where deleted_at is null;
create index invoices_customer on invoices (customer_id) where deleted_at is null;

create table documents (
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  invoice_id text not null references invoices(id),
  filename text not null,
  media_type text not null,
  size integer not null,
  sha256 text not null,
  content bytea,
  source text not null default 'api',
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index documents_invoice on documents (invoice_id) where deleted_at is null;

create table payments (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  invoice_id text not null references invoices(id),
  payment_date date not null,
  amount_cents bigint not null,
  method text not null,
  created_at timestamptz not null default now()
);
create index payments_list on payments (account_id, mode, seq desc);
create index payments_invoice on payments (invoice_id);

create table idempotency_keys (
  account_id text not null,
  mode text not null,
  key text not null,
  request_hash text not null,
  status_code integer,
  response_body text,
  created_at timestamptz not null default now(),
  primary key (account_id, mode, key)
);
create index idempotency_keys_age on idempotency_keys (created_at);
