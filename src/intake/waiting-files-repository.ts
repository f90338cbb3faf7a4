// Intake's answer to "which files wait for this invoice?": the received or waiting files whose
// name is the invoice's id or number. Intake owns its tables; the core's invoice insert knows
// nothing of them, and intake asks here when it hears of a new invoice (IntakeService.wakeWaiting).
import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import { scopeWhere } from '../repositories/scoped.ts';

export class WaitingFilesRepository {
  /** The ids of the scope's pending files named like the invoice (the index intake_records_pending_name). */
  async naming(q: Queryable, scope: Scope, invoice: { id: string; invoiceNumber: string }): Promise<string[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<{ id: string }>(
      `select t.id from intake_records t where ${w.sql} and t.status in ('received', 'waiting') and t.deleted_at is null
         and lower(t.match_name) in (lower($3), lower($4))`,
      [...w.params, invoice.id, invoice.invoiceNumber],
      { prepare: true },
    );
    return rows.map((r) => r.id);
  }
}
