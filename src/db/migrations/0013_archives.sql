-- ZIP archives (docs/intake.md): an archive received by any channel is unpacked at once, and each
-- of its files is staged as its own record that names the archive's record in archive_id. The
-- archive's record keeps no bytes (its files hold them) and ends as `unpacked`, or `failed` with
-- the reason when the archive as a whole is refused. Files outlive their archive's row (set
-- null): a purge takes each row on its own terms (a file that is a document's bytes stays); a
-- hand-over that could not be queued deletes the archive and its files together. Deferred: the
-- archive's record is written after its files, in the same transaction, so it is the newest.
alter table intake_staging add column archive_id text references intake_staging(id) on delete set null deferrable initially deferred;
create index intake_staging_archive on intake_staging (archive_id) where archive_id is not null;

alter table intake_records drop constraint intake_records_status_check;
alter table intake_records add constraint intake_records_status_check check (status in ('received', 'waiting', 'attached', 'failed', 'unpacked'));
