// The SQL of the replies owed to senders: which are due, their state, and how many went to one
// address lately (the per-hour limit, shared by every poller).
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../domain/scope.ts';
import { msFromNow } from './message-claim-repository.ts';

export type ReplyState = 'pending' | 'sending' | 'sent' | 'suppressed' | 'not_needed' | 'expired';

export interface ReplyRow {
  message_id: string;
  account_id: string;
  mode: Mode;
  recipient: string;
  subject: string | null;
  in_reply_to: string | null;
  refs: string | null;
  state: ReplyState;
  reason: string | null;
  attempts: number;
  /** the reply may say invoice facts: its sender is listed */
  facts: boolean;
  created_at: Date;
  sent_at: Date | null;
}

export class MailReplyRepository {
  /** Pending replies whose files are due for a look. */
  async duePending(q: Queryable, limit: number): Promise<ReplyRow[]> {
    return q.query<ReplyRow>(`select * from mail_replies where state = 'pending' and next_check_at <= now() order by next_check_at limit $1`, [limit]);
  }

  async postpone(q: Queryable, messageId: string, ms: number): Promise<void> {
    await q.query(`update mail_replies set next_check_at = ${msFromNow(2)}, updated_at = now() where message_id = $1 and state = 'pending'`, [messageId, ms]);
  }

  /** Moves a reply from pending to another state; false when someone else got there first. */
  async settleReply(q: Queryable, messageId: string, from: ReplyState, to: ReplyState, reason: string | null): Promise<boolean> {
    const rows = await q.query(
      `update mail_replies set state = $3, reason = $4, sent_at = case when $3 in ('sent', 'sending') then coalesce(sent_at, now()) else sent_at end, updated_at = now()
        where message_id = $1 and state = $2 returning 1 as x`,
      [messageId, from, to, reason],
    );
    return rows.length === 1;
  }

  /** A send that failed: back to pending, to be tried again later. */
  async retryReply(q: Queryable, messageId: string, ms: number, reason: string): Promise<void> {
    await q.query(
      `update mail_replies set state = 'pending', sent_at = null, attempts = attempts + 1, reason = $3, next_check_at = ${msFromNow(2)}, updated_at = now()
        where message_id = $1`,
      [messageId, ms, reason.slice(0, 1000)],
    );
  }

  /** Serialises reply decisions per recipient across pollers, for the caller's transaction. */
  async lockRecipient(q: Queryable, recipient: string): Promise<void> {
    await q.query('select pg_advisory_xact_lock(4242005, hashtext($1))', [recipient]);
  }

  async recentSends(q: Queryable, recipient: string, sinceMs: number): Promise<Date[]> {
    const rows = await q.query<{ sent_at: Date }>(
      `select sent_at from mail_replies where recipient = $1 and state in ('sent', 'sending') and sent_at > now() - $2::int * interval '1 millisecond'`,
      [recipient, sinceMs],
    );
    return rows.map((r) => new Date(r.sent_at));
  }

  /**
   * Whether a reply to this recipient was suppressed by the hourly limit since the last reply that
   * went to it: the limit is then already known to be reached (said once, not per message).
   */
  async limitAlreadyReached(q: Queryable, recipient: string): Promise<boolean> {
    const rows = await q.query<{ reached: boolean }>(
      `select exists(
         select 1 from mail_replies where recipient = $1 and state = 'suppressed' and reason like 'reply limit of %'
            and updated_at > coalesce((select max(sent_at) from mail_replies where recipient = $1 and state in ('sent', 'sending')), '-infinity'::timestamptz)
       ) as reached`,
      [recipient],
    );
    return rows[0]?.reached === true;
  }
}
