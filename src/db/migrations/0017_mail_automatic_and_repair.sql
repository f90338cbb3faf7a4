-- Issue 29. Automatic mail (bounces, read receipts, out-of-office replies) that carries no file is
-- `ignored`, not `failed`: no import record, its own mailbox, the reason says which kind.
-- moved_top_uid: the highest UID the mailbox had when the message was moved; a failed or ignored
-- message seen again above it was moved back by someone (the operator's repair) and is taken again.
-- origin: where a file came from inside its message (winmail.dat, smime.p7m) and, inside CMS,
-- whether the signature was verified.
alter table mail_messages drop constraint if exists mail_messages_outcome_check;
alter table mail_messages add constraint mail_messages_outcome_check check (outcome in ('processed', 'failed', 'ignored'));
alter table mail_messages add column moved_top_uid bigint;
alter table mail_message_files add column origin text;
