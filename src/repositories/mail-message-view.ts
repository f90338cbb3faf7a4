// The operator's view of the import mailbox's messages (GET /admin/mail-messages): every account's,
// newest first, filtered by outcome. System-wide by design (operators), read-only: the mail channel
// owns the table and writes it (channels/mail/message-claim-repository.ts).
import type { Queryable } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { MailMessageView, MailOutcome } from '../domain/mail-messages.ts';
import type { Mode } from '../domain/scope.ts';
import type { SenderVerdict } from '../domain/sender-verdict.ts';

/** A row of mail_messages, as page() selects it. */
interface MailMessageRow {
  id: string;
  mailbox: string;
  account_id: string | null;
  mode: Mode | null;
  sender: string | null;
  subject: string | null;
  outcome: MailOutcome | null;
  reason: string | null;
  sender_verdict: SenderVerdict | null;
  claimed_at: Date | string;
  updated_at: Date | string;
}

const toView = (r: MailMessageRow): MailMessageView => ({
  id: r.id,
  mailbox: r.mailbox,
  accountId: r.account_id ?? null,
  mode: r.mode ?? null,
  sender: r.sender ?? null,
  subject: r.subject ?? null,
  outcome: r.outcome ?? null,
  reason: r.reason ?? null,
  senderVerdict: r.sender_verdict ?? null,
  claimedAt: new Date(r.claimed_at),
  updatedAt: new Date(r.updated_at),
});

export class MailMessageViewRepository {
  /** System-wide (operators): newest first, by claim time; `from` is a message id of an earlier page's `next`. */
  async page(q: Queryable, req: PageRequest, outcome?: MailOutcome): Promise<Page<MailMessageView>> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (outcome) params.push(outcome), where.push(`m.outcome = $${params.length}`);
    if (req.from) {
      const cursor = await q.query('select 1 from mail_messages where id = $1', [req.from]);
      if (!cursor[0]) throw DomainError.invalid(`Field from names no item of this list: ${req.from}`, 'from');
      // compared in the database: a timestamp through JavaScript loses its microseconds
      params.push(req.from);
      where.push(`(m.claimed_at, m.id) <= (select c.claimed_at, c.id from mail_messages c where c.id = $${params.length})`);
    }
    const rows = await q.query<MailMessageRow>(
      `select m.id, m.mailbox, m.account_id, m.mode, m.sender, m.subject, m.outcome, m.reason, m.sender_verdict, m.claimed_at, m.updated_at from mail_messages m
       ${where.length ? `where ${where.join(' and ')}` : ''} order by m.claimed_at desc, m.id desc limit ${req.limit + 1}`,
      params,
    );
    return { items: rows.slice(0, req.limit).map(toView), ...(rows.length > req.limit ? { next: rows[req.limit].id } : {}) };
  }
}
