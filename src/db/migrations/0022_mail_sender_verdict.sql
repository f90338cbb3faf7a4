-- Who sent a message, as far as anyone checked (domain/sender-verdict.ts): kept with the message
-- and with each file it brought, so their records say it in words.
alter table mail_messages add column sender_verdict jsonb;
alter table intake_staging add column sender_verdict jsonb;
