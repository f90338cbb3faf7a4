// The status history of import records (what the dashboard shows for one file). The lines are
// inserted by the intake repository's status changes, in the same statements.
import type { Queryable } from '../db/database.ts';
import type { ImportRecord, IntakeStatus } from '../domain/intake.ts';
import { storedReason, type ReasonParams } from '../domain/intake-reasons.ts';
import type { Scope } from '../domain/scope.ts';
import { scopeWhere } from './scoped.ts';

export interface IntakeHistoryEntry extends Pick<ImportRecord, 'reason' | 'reasonCode' | 'reasonParams'> {
  at: Date;
  status: IntakeStatus;
}

export class IntakeHistoryRepository {
  async list(q: Queryable, scope: Scope, intakeId: string): Promise<IntakeHistoryEntry[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<{ at: Date; status: IntakeStatus; reason: string | null; reason_code: string | null; reason_params: ReasonParams | null }>(
      `select t.at, t.status, t.reason, t.reason_code, t.reason_params from intake_history t where ${w.sql} and t.intake_id = $3 order by t.at, t.seq`,
      [...w.params, intakeId],
    );
    return rows.map((r) => ({ at: r.at, status: r.status, reason: r.reason, ...storedReason(r.reason_code, r.reason_params) }));
  }
}
