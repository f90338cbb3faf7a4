import type { Queryable } from '../db/database.ts';
import { ACCOUNT_TABLES } from './account-tables.ts';

/** Lock id of the statistics refresh: one node at a time does it. */
const STATISTICS_LOCK = 4242002;

export class MaintenanceRepository {
  /**
   * Tables of our schema that grew by more than a tenth (and a few pages) since the planner's
   * statistics were taken, or that have none yet. Size against pg_class.relpages, because PGlite
   * keeps no modification counters (pg_stat_user_tables stays at zero there).
   */
  async tablesWithStaleStatistics(q: Queryable): Promise<string[]> {
    const rows = await q.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind = 'r'
         and pg_relation_size(c.oid) / current_setting('block_size')::int > 1.1 * greatest(c.relpages, 0) + 2
       order by c.relname`,
    );
    return rows.map((r) => r.name);
  }

  /** False when another node holds the statistics lock (it is released at the end of the transaction). */
  async tryStatisticsLock(q: Queryable): Promise<boolean> {
    return (await q.query<{ ok: boolean }>('select pg_try_advisory_xact_lock($1) as ok', [STATISTICS_LOCK]))[0].ok;
  }

  async analyze(q: Queryable, table: string): Promise<void> {
    await q.query(`analyze "${table.replaceAll('"', '""')}"`);
  }

  /** Deletes test-mode data created before the cutoff, by ACCOUNT_TABLES' purge rules in order. Returns rows deleted per table. */
  async purgeTestData(q: Queryable, olderThanDays: number): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [table, rule] of Object.entries(ACCOUNT_TABLES)) {
      if ('purge' in rule) counts[table] = (await q.query(`${rule.purge} returning 1 as x`, [olderThanDays])).length;
    }
    return counts;
  }
}
