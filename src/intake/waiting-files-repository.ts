// Intake's answer to "which files wait for this invoice?": the received or waiting files whose
// name is the invoice's id or number. Intake owns its tables; the core's invoice insert knows
// nothing of them, and intake asks here when it hears of new invoices (IntakeService.wakeWaiting).
import type { Queryable } from '../db/database.ts';
import type { Scope } from '../domain/scope.ts';
import { scopesEach } from '../repositories/scoped.ts';

export interface WaitingAsk {
  scope: Scope;
  invoice: { id: string; invoiceNumber: string };
}

export class WaitingFilesRepository {
  /**
   * For each new invoice, the ids of its scope's pending files named like it, in one statement
   * for all (the index intake_records_pending_name, probed once per invoice).
   */
  async naming(q: Queryable, asks: WaitingAsk[]): Promise<string[][]> {
    const s = scopesEach(
      asks.map((a) => a.scope),
      { id_name: asks.map((a) => a.invoice.id), number_name: asks.map((a) => a.invoice.invoiceNumber) },
    );
    const rows = await q.query<{ n: string | number; id: string }>(
      // lateral: one probe of the partial index per invoice, whatever the planner thinks of unnest's rows
      `select s.n, t.id from ${s.from} cross join lateral (select t.id from intake_records t where ${s.on}
         and t.status in ('received', 'waiting') and t.deleted_at is null
         and lower(t.match_name) = any (array[lower(s.id_name), lower(s.number_name)])) t`,
      s.params,
      { prepare: true },
    );
    const found: string[][] = asks.map(() => []);
    for (const r of rows) found[Number(r.n) - 1].push(r.id);
    return found;
  }
}
