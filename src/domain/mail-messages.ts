// A message of the import mailbox as operators see it (GET /admin/mail-messages).
import type { Mode } from './scope.ts';
import type { SenderVerdict } from './sender-verdict.ts';

export const MAIL_OUTCOMES = ['processed', 'failed', 'ignored'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

export interface MailMessageView {
  id: string;
  mailbox: string;
  accountId: string | null;
  mode: Mode | null;
  sender: string | null;
  subject: string | null;
  /** null while the message is being processed */
  outcome: MailOutcome | null;
  /** why it failed or was ignored ("automatic message: out-of-office reply") */
  reason: string | null;
  /** who sent it, as far as anyone checked (null: not read yet, or unreadable) */
  senderVerdict: SenderVerdict | null;
  claimedAt: Date;
  updatedAt: Date;
}
