-- Issue 44: which integrations still use an account's API key: the last use per mode, channel
-- (http, ftp, sftp) and client address, so that an owner can move them to upload keys and rotate.
-- Written at most once a minute per node for the same row.
create table api_key_uses (
  account_id text not null references accounts(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  channel text not null,
  address text not null,
  last_used_at timestamptz not null default now(),
  primary key (account_id, mode, channel, address)
);
