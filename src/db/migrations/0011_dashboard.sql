-- The dashboard (issue 15): people who sign in for an account, their sessions, and discarded
-- intake files (DELETE /v2/imports/{id} leaves a tombstone: a later read answers 410).

alter table intake_records add column deleted_at timestamptz;

-- One person belongs to one account; an e-mail address signs in to exactly one account.
create table account_users (
  id text primary key,
  account_id text not null references accounts(id) on delete cascade,
  email text not null,
  -- scrypt$N$r$p$salt$hash (base64); null until the invite is accepted
  password_hash text,
  -- sha256 of the one-time invite token; cleared when used
  invite_hash text,
  invite_expires_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index account_users_email on account_users (lower(email));
create index account_users_account on account_users (account_id, created_at);
create unique index account_users_invite on account_users (invite_hash) where invite_hash is not null;

-- Server-side sessions: the cookie carries a random token, this table its sha256. Deleting a
-- user ends their sessions (cascade); idle sessions end after DASHBOARD_IDLE_MINUTES.
create table user_sessions (
  hash text primary key,
  user_id text not null references account_users(id) on delete cascade,
  mode text not null default 'live' check (mode in ('live', 'test')),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index user_sessions_user on user_sessions (user_id);
