// The status history of intake records (what the dashboard shows for one file).
import type { Queryable } from '../db/database.ts';
import type { IntakeStatus } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import { scopeWhere } from './scoped.ts';

export interface IntakeHistoryEntry {
  at: Date;
  status: IntakeStatus;
  reason: string | null;
}

export const intakeHistoryRepository = {
  async insert(q: Queryable, scope: Scope, intakeId: string, e: IntakeHistoryEntry): Promise<void> {
    await q.query('insert into intake_history (intake_id, account_id, mode, at, status, reason) values ($1, $2, $3, $4, $5, $6)', [intakeId, scope.accountId, scope.mode, e.at, e.status, e.reason], {
      prepare: true, // twice for every file
    });
  },

  async list(q: Queryable, scope: Scope, intakeId: string): Promise<IntakeHistoryEntry[]> {
    const w = scopeWhere(scope);
    return q.query<IntakeHistoryEntry>(`select t.at, t.status, t.reason from intake_history t where ${w.sql} and t.intake_id = $3 order by t.at, t.seq`, [...w.params, intakeId]);
  },
};
