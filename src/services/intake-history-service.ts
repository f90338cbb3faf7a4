// Every status an import record went through, so that the dashboard can show a file's whole
// history, failures before the fix included. The lines are written by the statements that change
// the status (intake-repository.ts), never apart from them.
import type { Database } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import type { Scope } from '../domain/scope.ts';
import type { IntakeHistoryEntry } from '../repositories/intake-history-repository.ts';

export class IntakeHistoryService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'intakeHistory'>,
  ) {}

  /** Oldest first; the caller has checked that the record belongs to the scope. */
  list(scope: Scope, intakeId: string): Promise<IntakeHistoryEntry[]> {
    return this.repos.intakeHistory.list(this.db, scope, intakeId);
  }
}
