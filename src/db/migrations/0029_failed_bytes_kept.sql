-- Issue 45 (bench:scale): the hourly intake.retention joined every staged file to its record to
-- find the failed ones whose bytes were still kept past the retention (868 ms at 10^6 files with
-- nothing due). bytes_dropped_at says the retention has dropped a failed file's bytes (null: kept,
-- or not looked at yet), so the job reads only the failed files it has not dropped yet, oldest
-- first, by the partial index below: the due ones and nothing else.
-- A staged file's pointer is never set again once nulled (only an insert sets it), so a record
-- marked here keeps no bytes whatever its status does later (a retry needs the bytes: refused).
alter table intake_records add column bytes_dropped_at timestamptz;

-- failed files whose bytes are gone already (dropped by the retention, discarded, refused on
-- arrival): not revisited. Their moment is not known; the migration's stands for it.
update intake_records r set bytes_dropped_at = now()
  from intake_staging s where s.id = r.id and r.status = 'failed' and s.content_sha256 is null;

create index intake_records_failed_kept on intake_records (updated_at) where status = 'failed' and bytes_dropped_at is null;
