-- Who may send an account's mail, per mode (domain/sender-policy.ts). Accounts that never chose
-- follow MAIL_SENDER_POLICY_DEFAULT; those from before this migration keep today's behaviour.
create table account_sender_policies (
  account_id text not null references accounts (id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  policy text not null check (policy in ('anyone', 'listed')),
  senders text[] not null default '{}',
  updated_at timestamptz not null default now(),
  primary key (account_id, mode)
);
insert into account_sender_policies (account_id, mode, policy)
  select a.id, m.mode, 'anyone' from accounts a cross join (values ('live'), ('test')) as m (mode);

-- files from a sender the policy does not allow wait for an owner: held
alter table intake_records drop constraint intake_records_status_check;
alter table intake_records add constraint intake_records_status_check check (status in ('received', 'waiting', 'attached', 'failed', 'unpacked', 'held'));

-- what a reply may say: invoice facts (totals, which numbers exist) only to a listed sender
alter table mail_replies add column facts boolean not null default false;
