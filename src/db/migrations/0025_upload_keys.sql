-- Issue 44: upload keys. An owner makes any number per mode, each with a name, that open only
-- POST/GET /v2/imports and the FTP/FTPS/SFTP login; stored as SHA-256 of the key (shown once).
-- networks: CIDR blocks the key may be used from (empty: anywhere). last_used_*: when, from
-- where and over which channel it last opened something (written at most once a minute per node).
create table upload_keys (
  id text primary key,
  account_id text not null references accounts(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  name text not null,
  hash text not null unique,
  hint text not null,
  networks text[] not null default '{}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz,
  last_used_address text,
  last_used_channel text
);
create index upload_keys_account on upload_keys (account_id, mode, created_at);

-- the upload key a file came with (GET /v2/imports with that key lists only these)
alter table intake_records add column upload_key_id text;
create index intake_records_upload_key on intake_records (upload_key_id, seq) where upload_key_id is not null;
