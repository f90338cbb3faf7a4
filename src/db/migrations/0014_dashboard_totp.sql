-- Optional TOTP second factor of a dashboard user (RFC 6238, base32 secret as authenticator apps
-- take it). totp_last_step is the 30-second step of the last code accepted: a code is used once.
-- A new invite (a password reset) turns the second factor off again: a lost phone has a way back.
alter table account_users add column totp_secret text;
alter table account_users add column totp_last_step bigint;
