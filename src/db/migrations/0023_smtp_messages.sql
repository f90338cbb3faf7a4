-- Issue 43: the SMTP receiver. smtp_messages: each message as received, committed before the
-- sending server is told 250 (its envelope, the client's address and HELO, and who sent it as
-- SPF/DKIM/DMARC/ARC said); processed_at is set once the pipeline has taken it, so a restart
-- finds what is left. dedupe_key (Message-ID and the bytes' hash): a sender that retries a
-- message we had committed (its 250 was lost) gets 250 again and nothing twice.
-- mail_messages.transport: how a message came, 'imap' (the import mailbox) or 'smtp'.
create table smtp_messages (
  id text primary key,
  dedupe_key text not null,
  raw bytea,
  size bigint not null,
  mail_from text not null,
  rcpt_to text[] not null,
  client_ip text not null,
  helo text,
  tls boolean not null default false,
  verdict jsonb not null,
  attempts integer not null default 0,
  last_error text,
  received_at timestamptz not null default now(),
  processed_at timestamptz
);
create unique index smtp_messages_dedupe on smtp_messages (dedupe_key);
create index smtp_messages_open on smtp_messages (received_at) where processed_at is null;
create index smtp_messages_done on smtp_messages (processed_at) where processed_at is not null;
alter table mail_messages add column transport text not null default 'imap' check (transport in ('imap', 'smtp'));
