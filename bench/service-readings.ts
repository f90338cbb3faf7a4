// What a benchmark reads of the service it runs: its /metrics and its intake records.
import type pg from 'pg';

/** Staging groups so far (the service's intake_staging_batch_size: groups and the files in them; 0 before group commit). */
export async function stagingGroups(base: string): Promise<{ count: number; files: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: read('intake_staging_batch_size_count'), files: read('intake_staging_batch_size_sum') };
}

/** The service's files not yet settled (received or waiting) and those failed. */
export async function intakeCounts(sql: pg.Client): Promise<{ pending: number; failed: number }> {
  const [{ pending, failed }] = (
    await sql.query(
      `select count(*) filter (where status in ('received', 'waiting'))::int as pending, count(*) filter (where status = 'failed')::int as failed from intake_records`,
    )
  ).rows;
  return { pending, failed };
}
