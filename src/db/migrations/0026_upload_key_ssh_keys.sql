-- Issue 44: an SSH public key may belong to an upload key: an SFTP login with it acts with that
-- key's rights (uploads only, its networks) and ends with it (a revoked upload key's SSH keys
-- open nothing). Null: the account's key of its mode, as before.
alter table ssh_keys add column upload_key_id text references upload_keys(id) on delete cascade;
create index ssh_keys_upload_key on ssh_keys (upload_key_id) where upload_key_id is not null;
