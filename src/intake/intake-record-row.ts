// An import record as the repository selects it: the record joined with its staged file's facts.
import type { ImportRecord, MatchedBy } from '../domain/intake.ts';
import { storedReason, type ReasonParams } from '../domain/intake-reasons.ts';
import type { ScopedSource } from '../repositories/scoped.ts';
import type { SenderVerdict } from '../domain/sender-verdict.ts';

/** What a status change returns of each record it changed (the CTE `r`), for its history line. */
export const CHANGED = 't.id, t.account_id, t.mode, t.status, t.reason, t.reason_code, t.reason_params';

export const source: ScopedSource = {
  table: 'intake_records',
  columns: `t.id, s.channel, s.sender, s.filename, s.size, s.sha256, t.status, t.invoice_id, t.document_id, t.reason, t.reason_code, t.reason_params,
    s.received_at, t.updated_at, t.attached_at, t.match_name, t.matched_by, s.archive_id, s.sender_verdict, t.upload_key_id`,
  joins: 'join intake_staging s on s.id = t.id',
  // discarded files (DELETE /v2/imports/{id}) keep a tombstone
  tombstones: true,
};

/** A row of `source`: the record's own one-word fields, then its columns in snake case. */
export interface IntakeRecordRow extends Pick<ImportRecord, 'id' | 'channel' | 'sender' | 'filename' | 'size' | 'sha256' | 'status'> {
  invoice_id: string | null;
  document_id: string | null;
  reason: string | null;
  reason_code: string | null;
  reason_params: ReasonParams | null;
  received_at: Date | string;
  updated_at: Date | string;
  attached_at: Date | string | null;
  match_name: string | null;
  matched_by: MatchedBy | null;
  archive_id: string | null;
  sender_verdict?: SenderVerdict | null;
  upload_key_id?: string | null;
}

export const toRecord = (r: IntakeRecordRow): ImportRecord => ({
  id: r.id,
  channel: r.channel,
  sender: r.sender,
  filename: r.filename,
  size: r.size,
  sha256: r.sha256,
  status: r.status,
  invoiceId: r.invoice_id ?? null,
  documentId: r.document_id ?? null,
  reason: r.reason ?? null,
  ...storedReason(r.reason_code, r.reason_params),
  archiveId: r.archive_id ?? null,
  receivedAt: new Date(r.received_at),
  updatedAt: new Date(r.updated_at),
  attachedAt: r.attached_at ? new Date(r.attached_at) : null,
  matchedBy: r.matched_by ?? null,
  senderVerdict: r.sender_verdict ?? null,
  uploadKeyId: r.upload_key_id ?? null,
});
