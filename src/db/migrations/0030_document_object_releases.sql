-- Issues 45/46: the hourly documents.sweep listed every object of the store (10^7 at a year of
-- data: 20,000 checks, on S3 10,000 ListObjects calls, every hour). An object becomes an orphan
-- almost only when a row's pointer goes away (cleared, changed, or its row deleted); the triggers
-- below note each such SHA-256 here, whatever code path did it, and the sweep checks those once
-- they are older than its grace. A row here is a candidate, not a verdict: the sweep checks the
-- rows and the store as before. A put whose row never committed is found by the full listing,
-- which now runs only every DOCUMENT_SWEEP_FULL_INTERVAL_HOURS (document_sweeps.full_pass_at).
create table document_object_releases (
  sha256 text not null,
  released_at timestamptz not null default now()
);
-- the sweep reads the oldest first and deletes what it has checked by (released_at, sha256)
create index document_object_releases_at on document_object_releases (released_at, sha256);

create table document_sweeps (
  singleton boolean primary key default true check (singleton),
  -- the end of the last full listing; null: none yet (the next run makes one)
  full_pass_at timestamptz
);
insert into document_sweeps (full_pass_at) values (null);

-- Statement-level, with transition tables: one insert per statement, whatever the number of rows,
-- and nothing when no pointer went away. A SHA-256 that the same statement still has in another
-- row (content shared, pointers swapped) is not one that went away. Set differences, not a join on
-- the key: a row whose key changes too is still covered.
create function intake_staging_releases() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into document_object_releases (sha256) select distinct content_sha256 from old_rows where content_sha256 is not null;
  else
    insert into document_object_releases (sha256)
      select content_sha256 from old_rows where content_sha256 is not null
      except select content_sha256 from new_rows where content_sha256 is not null;
  end if;
  return null;
end
$$;
create trigger intake_staging_released_update after update on intake_staging
  referencing old table as old_rows new table as new_rows for each statement execute function intake_staging_releases();
create trigger intake_staging_released_delete after delete on intake_staging
  referencing old table as old_rows for each statement execute function intake_staging_releases();

create function documents_releases() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into document_object_releases (sha256)
      select content_sha256 from old_rows where content_sha256 is not null
      union select original_sha256 from old_rows where original_sha256 is not null;
  else
    insert into document_object_releases (sha256)
      (select content_sha256 from old_rows where content_sha256 is not null
       union select original_sha256 from old_rows where original_sha256 is not null)
      except (select content_sha256 from new_rows where content_sha256 is not null
       union select original_sha256 from new_rows where original_sha256 is not null);
  end if;
  return null;
end
$$;
create trigger documents_released_update after update on documents
  referencing old table as old_rows new table as new_rows for each statement execute function documents_releases();
create trigger documents_released_delete after delete on documents
  referencing old table as old_rows for each statement execute function documents_releases();

create function smtp_messages_releases() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into document_object_releases (sha256) select distinct raw_sha256 from old_rows where raw_sha256 is not null;
  else
    insert into document_object_releases (sha256)
      select raw_sha256 from old_rows where raw_sha256 is not null
      except select raw_sha256 from new_rows where raw_sha256 is not null;
  end if;
  return null;
end
$$;
create trigger smtp_messages_released_update after update on smtp_messages
  referencing old table as old_rows new table as new_rows for each statement execute function smtp_messages_releases();
create trigger smtp_messages_released_delete after delete on smtp_messages
  referencing old table as old_rows for each statement execute function smtp_messages_releases();
