-- One row naming this installation: the default Redis prefix is derived from it, so two
-- installations on one Redis never share queues, rate limits or lockouts (REDIS_PREFIX wins).
create table installation (
  singleton boolean primary key default true check (singleton),
  id text not null,
  created_at timestamptz not null default now()
);
insert into installation (id) values (substr(md5(gen_random_uuid()::text), 1, 12));

-- An Idempotency-Key claim holds only while its request lives: the process renews the lease,
-- and a retry after it lapsed (the process died mid-request) runs the request again.
alter table idempotency_keys add column lease_until timestamptz;

-- Operators switch accounts off and find them by name, id or FTP user.
alter table accounts add column disabled_at timestamptz;
create index accounts_newest on accounts (created_at desc, id desc);
-- GET /admin/imports?status=failed looks across accounts
create index intake_records_status_all on intake_records (status, seq desc);
