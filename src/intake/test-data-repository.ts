// Intake's share of the test-data purge (TEST_DATA_RETENTION_DAYS), run by MaintenanceService in
// the purge's transaction after the core's tables (repositories/account-tables.ts names it).
import type { Queryable } from '../db/database.ts';

export class IntakeTestDataRepository {
  readonly table = 'intake_staging';

  /**
   * Test-mode files (staged bytes and, by cascade, their records and history) received before the
   * cutoff, but for those whose bytes a younger invoice's document still shares; the rows deleted.
   */
  async purge(q: Queryable, olderThanDays: number): Promise<number> {
    const rows = await q.query(
      `delete from intake_staging s where mode = 'test' and received_at < now() - make_interval(days => $1::int)
         and not exists (select 1 from documents d where d.staged_id = s.id) returning 1 as x`,
      [olderThanDays],
    );
    return rows.length;
  }
}
