import type { Database, Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';

/** A part's own share of the test-data purge (repositories/account-tables.ts: `owner`): its table and its statement. */
interface TestDataPurge {
  readonly table: string;
  purge(q: Queryable, olderThanDays: number): Promise<number>;
}

/** Test data is virtual: it is purged after the configured retention. Planner statistics are kept fresh. */
export class MaintenanceService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'maintenance'>,
    private readonly retentionDays: number,
    /** the other parts' tables (intake's), each purged by its owner after the core's, in the same transaction */
    private readonly purges: TestDataPurge[] = [],
  ) {}

  /**
   * Analyzes the tables that grew by a tenth since their statistics were taken; returns their
   * names. Without statistics the planner may scan a whole index of the account (or the table)
   * for one row. PGlite has no autovacuum at all, and PostgreSQL's looks once a minute: a fresh
   * database's first thousand invoices would not wait for it.
   */
  refreshStatistics(): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      if (!(await this.repos.maintenance.tryStatisticsLock(tx))) return [];
      const tables = await this.repos.maintenance.tablesWithStaleStatistics(tx);
      for (const table of tables) await this.repos.maintenance.analyze(tx, table);

      return tables;
    });
  }

  purgeTestData(olderThanDays = this.retentionDays): Promise<Record<string, number>> {
    return this.db.transaction(async (tx) => {
      const counts = await this.repos.maintenance.purgeTestData(tx, olderThanDays);
      for (const p of this.purges) counts[p.table] = await p.purge(tx, olderThanDays);
      return counts;
    });
  }
}
