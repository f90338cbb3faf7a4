-- Issue 49 (item 7): an owner's invite of an address that signs in to another account is held,
-- not refused, so that the owner cannot learn which addresses other accounts have (an e-mail
-- address belongs to one account: account_users_email). A held invite is listed, shown and
-- e-mailed like any other; its link says why it cannot be used and sets no password. Removing it
-- (or the account) deletes it; invited again once the address is free, it becomes a real invite.
create table held_invites (
  id text primary key,
  account_id text not null references accounts(id) on delete cascade,
  email text not null,
  invite_hash text not null,
  invite_expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create unique index held_invites_email on held_invites (account_id, lower(email));
create unique index held_invites_hash on held_invites (invite_hash);
