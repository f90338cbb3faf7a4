-- SFTP: files received over SFTP are intake channel `sftp`; accounts register SSH public keys per
-- mode to log in without a password. A key opens one account and one mode: its fingerprint is
-- unique within the account, so the mode a key logs into is never ambiguous.

alter table intake_staging drop constraint intake_staging_channel_check;
alter table intake_staging add constraint intake_staging_channel_check check (channel in ('ftp', 'sftp', 'mail', 'http'));

create table ssh_keys (
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  key_type text not null,
  -- the key blob, base64 (what the client presents at login)
  public_key text not null,
  fingerprint text not null,
  comment text not null default '',
  created_at timestamptz not null default now()
);
create unique index ssh_keys_fingerprint on ssh_keys (account_id, fingerprint);
create index ssh_keys_scope on ssh_keys (account_id, mode, created_at);
