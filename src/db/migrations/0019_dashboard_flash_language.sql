-- The dashboard's flash (docs/dashboard.md): what the page after a form shows once (a message, a
-- new API key, a TOTP secret being set up), held server-side with the session, taken by the next
-- page view. A query string never carries a message.
alter table user_sessions add column flash jsonb;

-- The language a person chose (en, nl, de; null: the browser's), and the time zone the browser
-- reported for this session (null until the page sends it: times show in UTC).
alter table account_users add column language text;
alter table user_sessions add column time_zone text;

-- Ten one-time recovery codes per person with two-step sign-in (their SHA-256; a used code is
-- removed from the array).
alter table account_users add column recovery_codes text[];

-- Who may invite and remove colleagues in the dashboard: people the operator invites are the
-- account's owners; people an owner invites from the dashboard are members.
alter table account_users add column role text not null default 'owner';

-- A password reset asked for on the sign-in page (its link e-mailed; SHA-256 of the token). Unlike
-- a new invite it keeps the second factor.
alter table account_users add column reset_hash text, add column reset_expires_at timestamptz;
create index account_users_reset on account_users (reset_hash) where reset_hash is not null;
