-- Webhooks: endpoints per account and mode, the event outbox, and each delivery attempt.
-- webhook_events is the outbox: a row is written in the transaction of the change it reports,
-- and dispatched_at stays null until its deliveries are queued (see docs/webhooks.md).

create table webhooks (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  url text not null,
  events text[] not null,
  enabled boolean not null default true,
  -- kept in the clear: HMAC signing needs the key itself (docs/webhooks.md, "Secrets")
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  -- first failure of the current run of failures; cleared by a success
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_list on webhooks (account_id, mode, seq desc);

create table webhook_events (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  type text not null,
  -- set for an event meant for one endpoint only (a ping); null: every subscribed endpoint
  webhook_id text references webhooks(id) on delete cascade,
  -- the payload as sent, byte for byte the same on every retry
  body text not null,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz
);
create index webhook_events_outbox on webhook_events (seq) where dispatched_at is null;

-- one row per event and endpoint: where its delivery stands
create table webhook_deliveries (
  event_id text not null references webhook_events(id) on delete cascade,
  webhook_id text not null references webhooks(id) on delete cascade,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  updated_at timestamptz not null default now(),
  primary key (event_id, webhook_id)
);
create index webhook_deliveries_pending on webhook_deliveries (updated_at) where state = 'pending';

-- every attempt, for GET /v2/webhooks/{id}/deliveries
create table webhook_attempts (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null,
  mode text not null,
  webhook_id text not null references webhooks(id) on delete cascade,
  event_id text not null references webhook_events(id) on delete cascade,
  event_type text not null,
  attempted_at timestamptz not null default now(),
  status_code integer,
  duration_ms integer not null,
  -- the first 1 KB of the answer, or why there was none
  response text,
  error text,
  success boolean not null
);
create index webhook_attempts_list on webhook_attempts (webhook_id, seq desc);
