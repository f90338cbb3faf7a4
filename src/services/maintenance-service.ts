import type { Database } from '../db/database.ts';
import { maintenanceRepository } from '../repositories/maintenance-repository.ts';

/** Test data is virtual: it is purged after the configured retention. */
export class MaintenanceService {
  constructor(
    private readonly db: Database,
    private readonly retentionDays: number,
  ) {}

  purgeTestData(olderThanDays = this.retentionDays): Promise<Record<string, number>> {
    return this.db.transaction((tx) => maintenanceRepository.purgeTestData(tx, olderThanDays));
  }
}
