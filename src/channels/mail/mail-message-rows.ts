// The rows of the import mailbox's bookkeeping (message-claim-repository.ts): a mailbox, a claimed
// message, a file it handed over, what its staging records, and what a claim found.
import type { Mode, Scope } from '../../domain/scope.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';

export interface MailboxRow {
  mailbox: string;
  uidvalidity: number;
  last_uid: number;
}

type MessageState = 'claimed' | 'staged' | 'moved';
export type MessageOutcome = 'processed' | 'failed' | 'ignored';

export interface MessageRow {
  id: string;
  mailbox: string;
  /** how the message came: the import mailbox or the SMTP receiver */
  transport: 'imap' | 'smtp';
  message_key: string;
  uidvalidity: number;
  uid: number;
  size: number;
  state: MessageState;
  owner: string | null;
  lease_until: Date | null;
  attempts: number;
  account_id: string | null;
  mode: Mode | null;
  sender: string | null;
  subject: string | null;
  header_message_id: string | null;
  outcome: MessageOutcome | null;
  reason: string | null;
  last_error: string | null;
  claimed_at: Date;
  staged_at: Date | null;
  moved_at: Date | null;
}

export interface FileRow {
  message_id: string;
  slot: string;
  intake_id: string;
  filename: string;
  sha256: string | null;
  /** where the file came from inside the message (a container), and its signature */
  origin?: string | null;
}

export interface StageReply {
  recipient: string;
  refs?: string[];
  state: 'pending' | 'suppressed';
  reason?: string;
  /** it may say invoice facts (totals, which numbers exist): the sender is listed */
  facts?: boolean;
}

export interface StageInput {
  id: string;
  owner: string;
  outcome: MessageOutcome;
  reason: string | null;
  scope?: Scope;
  sender: string | null;
  subject: string | null;
  headerMessageId: string | null;
  files: FileRow[];
  reply?: StageReply;
  /** who sent it, as far as anyone checked (undefined: the message could not be read) */
  verdict?: SenderVerdict;
  /** nothing to move afterwards (an SMTP message has no folder): the claim becomes moved at once */
  moved?: boolean;
  /** a CTE body the staging statement runs too, only when it staged the claim (CTE `s` has its row); its parameters go after `params` */
  also?: (params: unknown[]) => string;
}

export type ClaimResult =
  /** `again`: a failed or ignored message someone moved back into the mailbox, taken afresh */
  | { kind: 'claimed'; row: MessageRow; resumed: boolean; again?: { outcome: MessageOutcome; reason: string | null } }
  /** handed over already; `move` says whether this poller should move it (the one that staged it
   * moves it itself: two sessions moving one message can leave two copies in the target) */
  | { kind: 'staged'; row: MessageRow; move: boolean }
  | { kind: 'busy'; row: MessageRow };

/** A claim made by the statement that commits its SMTP message (SmtpMessageRepository.insertMany), for the receiving process's own run. */
export interface PreClaim {
  id: string;
  /** the smtp_messages row it belongs to: made only when that row is inserted (not for a duplicate) */
  smtpId: string;
  mailbox: string;
  key: string;
  size: number;
  owner: string;
  leaseMs: number;
}

/** The row message-claim-repository.ts's claimsInStatement inserted for `c`, as claim() would have returned it. Pure. */
export function preClaimedRow(c: PreClaim, claimedAt: Date, leaseUntil: Date): MessageRow {
  return {
    id: c.id,
    mailbox: c.mailbox,
    transport: 'smtp',
    message_key: c.key,
    uidvalidity: 0,
    uid: 0,
    size: c.size,
    state: 'claimed',
    owner: c.owner,
    lease_until: leaseUntil,
    attempts: 0,
    account_id: null,
    mode: null,
    sender: null,
    subject: null,
    header_message_id: null,
    outcome: null,
    reason: null,
    last_error: null,
    claimed_at: claimedAt,
    staged_at: null,
    moved_at: null,
  };
}
