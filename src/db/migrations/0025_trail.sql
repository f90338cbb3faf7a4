-- Issue 44: the trail. Every change a person, a key or an operator makes outside the per-file
-- flow: who (actor kind, id, label as it was then), when, from where, what. mode is null for a
-- change to the whole account (people, two-step sign-in, disabled by the operator). No foreign key
-- to accounts: the trail outlives what it names. Rows are never changed; only the retention purge
-- deletes, and it says so in its own transaction (trail.purge), so that no other path can.
create table trail_entries (
  seq bigint generated always as identity,
  id text primary key,
  account_id text not null,
  mode text,
  at timestamptz not null default now(),
  actor_kind text not null check (actor_kind in ('person', 'api_key', 'upload_key', 'operator')),
  actor_id text,
  actor_label text not null,
  address text,
  action text not null,
  target text,
  detail jsonb not null default '{}'
);
create index trail_entries_account on trail_entries (account_id, seq desc);
create index trail_entries_at on trail_entries (at);

create function trail_entries_refuse() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' and current_setting('trail.purge', true) = 'on' then
    return old;
  end if;
  raise exception 'trail entries cannot be changed or deleted';
end
$$;
create trigger trail_entries_immutable before update or delete on trail_entries
  for each row execute function trail_entries_refuse();
