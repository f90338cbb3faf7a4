-- Optional TOTP second factor of a dashboard user (RFC 6238, base32 secret as authenticator apps
-- take it). totp_last_step is the 30-second step of the last code accepted: a code is used once.
-- A new invite (a password reset) turns the second factor off again: a lost phone has a way back.
alter table account_users add column totp_secret text;
alter table account_users add column totp_last_step bigint;

-- Every status an import record went through, with its reason, for the dashboard's history of a
-- file (the record itself keeps only the latest). Written by the process that made the change.
create table intake_history (
  seq bigint generated always as identity primary key,
  intake_id text not null references intake_records(id) on delete cascade,
  account_id text not null,
  mode text not null,
  at timestamptz not null,
  status text not null,
  reason text
);
create index intake_history_record on intake_history (intake_id, at, seq);
