// What MailIntake (mail-intake.ts) is given and what it hands back: a claimed message's content,
// its options, and the result of one message.
import type { Scope } from '../../domain/scope.ts';
import type { SenderPolicy } from '../../domain/sender-policy.ts';
import type { AutomaticMail } from './auto-reply-rules.ts';
import type { MessageOutcome, StageInput } from './mail-message-rows.ts';
import type { MessagePart } from './pdf-parts.ts';

/** The content of a claimed message: whole, or (too large to download whole) only its candidate parts. */
export type MessageContent =
  | { kind: 'whole'; source: Buffer }
  | { kind: 'parts'; headers: Buffer; parts: MessagePart[]; text?: string; skipped: { filename: string; size: number; maxBytes: number }[]; notPdf: string[] };

export interface MailIntakeOptions {
  mailbox: string;
  /** how its messages come: the import mailbox (default) or the SMTP receiver */
  transport?: 'imap' | 'smtp';
  leaseMs: number;
  /** replies are recorded only when an SMTP transport is configured */
  replies: boolean;
  /** our own addresses: mail from them is never answered */
  ownAddresses: string[];
  /** mail read by IMAP: the authserv-id whose Authentication-Results header is believed (unset: none) */
  authservId?: string;
  /** who may send to an account (unset: anyone) */
  senderPolicy?: (scope: Scope) => Promise<SenderPolicy>;
  /** how many recent import records to search when a resumed claim looks for its own files */
  adoptWindow?: number;
  /** told of each automatic message that was ignored (the operator's metric) */
  onAutomatic?: (category: AutomaticMail['category']) => void;
}

export interface ProcessResult {
  id: string;
  outcome: MessageOutcome;
  reason: string | null;
  scope?: Scope;
  files: number;
}

/** A handed-over message, ready to be staged. */
export interface PlannedMessage {
  result: ProcessResult;
  stage: StageInput;
}
