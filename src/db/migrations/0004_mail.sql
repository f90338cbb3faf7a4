-- The e-mail channel's bookkeeping. mail_mailboxes: the UIDVALIDITY and highest UID seen per
-- mailbox. mail_messages: one claim per message, keyed by the message's identity (hash of its
-- header block and size) so that a renumbered mailbox (UIDVALIDITY change) or a second poller
-- never hands a message over twice. mail_message_files: which files of a claimed message are
-- already with the intake pipeline, so a resumed claim does not stage them again.
-- mail_replies: the answer owed to a sender once the intake outcome of the files is known.

create table mail_mailboxes (
  mailbox text primary key,
  uidvalidity bigint not null,
  last_uid bigint not null default 0,
  updated_at timestamptz not null default now()
);

create table mail_messages (
  id text primary key,
  mailbox text not null,
  message_key text not null,
  uidvalidity bigint not null,
  uid bigint not null,
  size bigint not null,
  state text not null check (state in ('claimed', 'staged', 'moved')),
  owner text,
  lease_until timestamptz,
  attempts integer not null default 1,
  account_id text references accounts(id),
  mode text check (mode in ('live', 'test')),
  sender text,
  subject text,
  header_message_id text,
  outcome text check (outcome in ('processed', 'failed')),
  reason text,
  last_error text,
  claimed_at timestamptz not null default now(),
  staged_at timestamptz,
  moved_at timestamptz,
  updated_at timestamptz not null default now()
);
create unique index mail_messages_key on mail_messages (mailbox, message_key);
create index mail_messages_uid on mail_messages (mailbox, uidvalidity, uid);
create index mail_messages_open on mail_messages (state, owner) where state <> 'moved';
create index mail_messages_done on mail_messages (coalesce(moved_at, staged_at)) where state <> 'claimed';

create table mail_message_files (
  message_id text not null references mail_messages(id) on delete cascade,
  slot text not null,
  intake_id text not null,
  filename text not null,
  sha256 text,
  created_at timestamptz not null default now(),
  primary key (message_id, slot)
);

create table mail_replies (
  message_id text primary key references mail_messages(id) on delete cascade,
  account_id text not null references accounts(id),
  mode text not null check (mode in ('live', 'test')),
  recipient text not null,
  subject text,
  in_reply_to text,
  refs text,
  state text not null check (state in ('pending', 'sending', 'sent', 'suppressed', 'not_needed', 'expired')),
  reason text,
  attempts integer not null default 0,
  next_check_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  updated_at timestamptz not null default now()
);
create index mail_replies_due on mail_replies (next_check_at) where state = 'pending';
create index mail_replies_sent on mail_replies (recipient, sent_at) where state = 'sent'
