// Intake's side of the documents made from its files, each written by intake's own SQL in the
// document's statement or transaction (DocumentService.attach and its tombstones compose them): the record
// marked attached to the document the attach ended on, the records of the document it replaced
// saying so, and the staged bytes that no document shares any more freed.
import type { Queryable } from '../db/database.ts';
import type { MatchedBy } from '../domain/intake.ts';
import { reasonColumns, type IntakeReason } from '../domain/intake-reasons.ts';
import type { Scope } from '../domain/scope.ts';
import type { AttachFollowUp } from '../repositories/document-repository.ts';
import type { SharedBytes } from '../services/document-service.ts';

/** What an attached record says (its reason) and its history line, when the attach changed the invoice's document and when it had these bytes already. */
export interface AttachedTexts {
  note: { changed: IntakeReason | null; unchanged: IntakeReason | null };
  history: { changed: IntakeReason; unchanged: IntakeReason };
  /** what the record of a document this one replaced says from now on (which file is the invoice's document, and why) */
  replaced: IntakeReason;
}

const HISTORY_COLUMNS = 'intake_id, account_id, mode, at, status, reason, reason_code, reason_params';

export class DocumentLinkRepository implements SharedBytes {
  /**
   * The record marked attached (once: an attached record is left alone) to the document the attach
   * `ended` on, with its history line, its staged bytes dropped unless that document shares them;
   * the attached records of the documents that are `gone` say so, each with a line. Part of the
   * attach's own statement (AttachFollowUp): one round trip. The texts for a changed and an
   * unchanged document are both bound; `ended.changed` picks.
   */
  markAttached(scope: Scope, id: string, matchedBy: MatchedBy, t: AttachedTexts): AttachFollowUp {
    return {
      sql(p) {
        const [account, mode, record] = [p(scope.accountId), p(scope.mode), p(id)];
        /** a reason's text, code and parameters: the changed or the unchanged one */
        const pick = (changed: IntakeReason | null, unchanged: IntakeReason | null) => {
          const [a, b] = [
            [changed?.text ?? null, ...reasonColumns(changed)],
            [unchanged?.text ?? null, ...reasonColumns(unchanged)],
          ];
          return a.map((v, i) => `case when ended.changed then ${p(v)} else ${p(b[i])} end`);
        };
        const [note, noteCode, noteParams] = pick(t.note.changed, t.note.unchanged);
        const [line, lineCode, lineParams] = pick(t.history.changed, t.history.unchanged);
        const [replaced, replacedCode, replacedParams] = [t.replaced.text, ...reasonColumns(t.replaced)].map(p);
        const ctes = `fu_r as (
            update intake_records t set status = 'attached', invoice_id = ended.invoice_id, document_id = ended.id, matched_by = ${p(matchedBy)}, updated_at = now(),
              attached_at = now(), reason = ${note}, reason_code = ${noteCode}, reason_params = (${noteParams})::jsonb
            from ended where t.id = ${record} and t.account_id || '' = ${account} and t.mode = ${mode} and t.status <> 'attached' returning t.id, t.account_id, t.mode, t.status
          ), fu_dropped as (
            update intake_staging s set content_sha256 = null from fu_r, ended where s.id = fu_r.id and ended.staged_id is distinct from fu_r.id
          ), fu_followed as (
            insert into intake_history (${HISTORY_COLUMNS})
            select fu_r.id, fu_r.account_id, fu_r.mode, clock_timestamp(), fu_r.status, ${line}, ${lineCode}, (${lineParams})::jsonb from fu_r, ended returning intake_id
          ), fu_superseded as (
            update intake_records t set reason = ${replaced}, reason_code = ${replacedCode}, reason_params = ${replacedParams}::jsonb, updated_at = now()
            where t.document_id = any(array(select id from gone)) and t.account_id || '' = ${account} and t.mode = ${mode} and t.status = 'attached' and t.id <> ${record}
            returning t.id, t.account_id, t.mode, t.status
          ), fu_superseded_history as (
            insert into intake_history (${HISTORY_COLUMNS})
            select s.id, s.account_id, s.mode, clock_timestamp(), s.status, ${replaced}, ${replacedCode}, ${replacedParams}::jsonb from fu_superseded s
          )`;
        return { ctes, followed: '(select count(*) from fu_followed)' };
      },
    };
  }

  /** The staged bytes of these files freed: the documents that shared them are tombstoned. */
  async release(q: Queryable, scope: Scope, stagedIds: string[]): Promise<void> {
    await q.query('update intake_staging s set content_sha256 = null where s.id = any($3::text[]) and s.account_id = $1 and s.mode = $2', [
      scope.accountId,
      scope.mode,
      stagedIds,
    ]);
  }
}
