-- Issue 43: a file received by SMTP may have its intake step run by the process that received it,
-- without a BullMQ job (src/intake/local-runs.ts). The reconciler queues a job for every pending
-- record that has none; run_lease_until keeps it off such a record while that process runs it
-- (INTAKE_LOCK_MS, as a job's lock). A process that dies leaves the lease to run out, and the
-- reconciler then queues the file's job as for any other. null: the file has a job (every other file).
alter table intake_records add column run_lease_until timestamptz;
