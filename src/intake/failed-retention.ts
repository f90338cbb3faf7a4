// intake.retention (hourly, src/app/periodic-work.ts): the bytes of files that failed before the
// cutoff are dropped. The due records come from the partial index intake_records_failed_kept
// (migration 0029: failed, bytes not dropped yet), oldest first, so a run reads the due rows and
// nothing else however many files the installation holds.
import type { Queryable } from '../db/database.ts';

/** records marked a statement: each statement is its own short transaction, however long the backlog */
const BATCH = 10_000;

// The record's conditions are checked again on the row being marked (a join's subquery is not
// re-read under the row lock): a file retried or failed again meanwhile keeps its bytes.
const DUE = `r.status = 'failed' and r.bytes_dropped_at is null and r.updated_at < now() - make_interval(days => $1::int)`;

/**
 * One batch: marks the due records ($1 days, at most $2 of them, oldest first) and nulls their staged
 * files' pointers; how many it marked and how many files' bytes it dropped.
 */
export const DROP_DUE_SQL = `with marked as (
    update intake_records r set bytes_dropped_at = now()
    where r.id = any(array(select r.id from intake_records r where ${DUE} order by r.updated_at limit $2::int)) and ${DUE}
    returning r.id
  ), dropped as (
    update intake_staging s set content_sha256 = null from marked where s.id = marked.id and s.content_sha256 is not null returning 1
  )
  select (select count(*)::int from marked) as marked, (select count(*)::int from dropped) as dropped`;

/**
 * Drops the due files' bytes, `batch` records a statement until fewer are due; returns how many
 * staged files' bytes were dropped. A record failed without bytes (refused on arrival, discarded)
 * is marked too, and not read again.
 */
export async function dropFailedContent(q: Queryable, olderThanDays: number, batch = BATCH): Promise<number> {
  let dropped = 0;
  for (;;) {
    const [n] = await q.query<{ marked: number; dropped: number }>(DROP_DUE_SQL, [olderThanDays, batch]);
    dropped += n.dropped;
    if (n.marked < batch) return dropped;
  }
}
