// Keeps every status change of an intake record (from the domain events of the process that made
// it) so that the dashboard can show a file's whole history, failures before the fix included.
import type { Database } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import { intakeHistoryRepository as history, type IntakeHistoryEntry } from '../repositories/intake-history-repository.ts';
import type { DomainEventMap } from './domain-events.ts';

export class IntakeHistoryService {
  constructor(private readonly db: Database) {}

  /** The change as it was announced; the time is taken now, in the order the changes happened. */
  record(e: DomainEventMap['intakeStatus']): Promise<void> {
    return history.insert(this.db, e.scope, e.intakeId, { at: new Date(), status: e.status, reason: e.reason });
  }

  /** Oldest first; the caller has checked that the record belongs to the scope. */
  list(scope: Scope, intakeId: string): Promise<IntakeHistoryEntry[]> {
    return history.list(this.db, scope, intakeId);
  }
}
