// The intake record's side of an attach, written by the attach's own statement
// (document-repository.ts runs these CTEs after its own): the record marked attached with its
// history line, in one round trip and one commit with the document.
import type { MatchedBy } from '../domain/intake.ts';
import { reasonColumns, type IntakeReason } from '../domain/intake-reasons.ts';
import { FOLLOW_UP_FIRST_PARAM, type AttachFollowUp } from '../repositories/document-repository.ts';
import { CHANGED } from './intake-record-row.ts';

/** What an attached record says (its reason) and its history line, when the attach changed the invoice's document and when it had these bytes already. */
export interface AttachedTexts {
  note: { changed: IntakeReason | null; unchanged: IntakeReason | null };
  history: { changed: IntakeReason; unchanged: IntakeReason };
  /** what the record of a document this one replaced says from now on (which file is the invoice's document, and why) */
  replaced: IntakeReason;
}

const p = (n: number) => `$${FOLLOW_UP_FIRST_PARAM + n}`;
/** `changed`: the attach inserted the document (else the invoice had these bytes: `same`) */
const pick = (changed: number, unchanged: number, cast = '') => `case when exists (select 1 from ins) then ${p(changed)}${cast} else ${p(unchanged)}${cast} end`;
/**
 * markAttached as the follow-up of the attach's statement (document-repository.ts): the record of
 * the document the attach ended on (`ins` or `same`; none when it kept another or found no
 * invoice) is marked attached with its history line, and its staged bytes dropped unless that
 * document shares them. The records of the document it replaced (`gone`) say so, with a history
 * line, in the same commit. Params: intake id, matched by, then text/code/params of the note
 * changed, unchanged, of the history line changed, unchanged, and of the replaced records' reason.
 */
const ATTACHED_FOLLOW_UP = `, ended as (
    select id, staged_id from ins union all select id, staged_id from same
  ), r as (
    update intake_records t set status = 'attached', invoice_id = $3, document_id = ended.id, matched_by = ${p(1)}, updated_at = now(), attached_at = now(),
      reason = ${pick(2, 5)}, reason_code = ${pick(3, 6)}, reason_params = ${pick(4, 7, '::jsonb')}
    from ended where t.id = ${p(0)} and t.account_id || '' = $1 and t.mode = $2 and t.status <> 'attached' returning ${CHANGED}
  ), dropped as (
    update intake_staging s set content = null from r where s.id = r.id and not exists (select 1 from ended where ended.staged_id = s.id)
  ), followed as (
    insert into intake_history (intake_id, account_id, mode, at, status, reason, reason_code, reason_params)
    select r.id, r.account_id, r.mode, clock_timestamp(), r.status, ${pick(8, 11)}, ${pick(9, 12)}, ${pick(10, 13, '::jsonb')} from r returning intake_id
  ), superseded as (
    update intake_records t set reason = ${p(14)}, reason_code = ${p(15)}, reason_params = ${p(16)}::jsonb, updated_at = now()
    from gone where t.document_id = gone.id and t.account_id || '' = $1 and t.mode = $2 and t.status = 'attached' and t.id <> ${p(0)} returning t.id, t.account_id, t.mode, t.status
  ), superseded_history as (
    insert into intake_history (intake_id, account_id, mode, at, status, reason, reason_code, reason_params)
    select s.id, s.account_id, s.mode, clock_timestamp(), s.status, ${p(14)}, ${p(15)}, ${p(16)}::jsonb from superseded s returning intake_id
  )`;

export function attachedFollowUp(id: string, matchedBy: MatchedBy, t: AttachedTexts): AttachFollowUp {
  const cols = (r: IntakeReason | null) => [r?.text ?? null, ...reasonColumns(r)];
  return {
    ctes: ATTACHED_FOLLOW_UP,
    params: [id, matchedBy, ...cols(t.note.changed), ...cols(t.note.unchanged), ...cols(t.history.changed), ...cols(t.history.unchanged), ...cols(t.replaced)],
  };
}
