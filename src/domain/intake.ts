// An import record: what happened to one received file, as every channel and the API show it.
import type { IntakeChannel } from './channels.ts';
import type { ReasonCode, ReasonParams } from './intake-reasons.ts';
import type { SenderVerdict } from './sender-verdict.ts';

export type { IntakeChannel };
/** `unpacked`: a ZIP archive whose files became records of their own (domain/archive.ts); `held`: from a sender the account's policy does not allow, until an owner releases or discards it */
export const INTAKE_STATUSES = ['received', 'waiting', 'attached', 'failed', 'unpacked', 'held'] as const;
export type IntakeStatus = (typeof INTAKE_STATUSES)[number];
/** How an attached file found its invoice (docs/intake.md, "Matching"). */
export const MATCHED_BY = ['invoice_id', 'invoice_number', 'einvoice', 'subject', 'name_token', 'pdf_text', 'manual'] as const;
export type MatchedBy = (typeof MATCHED_BY)[number];

export interface ImportRecord {
  id: string;
  channel: IntakeChannel;
  sender: string;
  filename: string;
  size: number;
  sha256: string;
  status: IntakeStatus;
  invoiceId: string | null;
  documentId: string | null;
  /** why it failed or what it is waiting for, in words for people */
  reason: string | null;
  /** the reason's code and parameters (domain/intake-reasons.ts): null for reasons with no words but the text */
  reasonCode?: ReasonCode | null;
  reasonParams?: ReasonParams | null;
  /** the record of the ZIP archive this file came in (null or absent: it came on its own) */
  archiveId?: string | null;
  receivedAt: Date;
  updatedAt: Date;
  attachedAt: Date | null;
  /** set when attached */
  matchedBy: MatchedBy | null;
  /** mail only: who sent the message, as far as anyone checked (null or absent: not mail, or from before verdicts) */
  senderVerdict?: SenderVerdict | null;
  /** the upload key the file came with (issue 44), null for the API key, mail and SSH keys */
  uploadKeyId?: string | null;
}

/** What the dashboard's list of received files filters on. */
export interface IntakeFilter {
  status?: IntakeStatus;
  channel?: IntakeChannel;
  /** received after this moment */
  since?: Date;
  /** part of the file name or of the invoice number */
  text?: string;
  /** a page's cursor: only files listed after this import (older), as GET /v2/imports pages */
  after?: string;
  limit: number;
}

export type IntakeListItem = ImportRecord & { invoiceNumber: string | null };

/** Files received per channel and status since a moment (the overview's chart). */
export interface IntakeCount {
  channel: IntakeChannel;
  status: IntakeStatus;
  count: number;
}
