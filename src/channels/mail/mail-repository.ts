// Every SQL statement of the e-mail channel: mailbox state, message claims, handed-over files
// and owed replies.
import type { Queryable } from '../../db/database.ts';
import type { Mode, Scope } from '../../domain/scope.ts';

export interface MailboxRow {
  mailbox: string;
  uidvalidity: number;
  last_uid: number;
}

export type MessageState = 'claimed' | 'staged' | 'moved';
export type MessageOutcome = 'processed' | 'failed';

export interface MessageRow {
  id: string;
  mailbox: string;
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
}

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
  created_at: Date;
  sent_at: Date | null;
}

export interface StageReply {
  recipient: string;
  refs?: string[];
  state: 'pending' | 'suppressed';
  reason?: string;
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
}

export type ClaimResult =
  | { kind: 'claimed'; row: MessageRow; resumed: boolean }
  /** handed over already; `move` says whether this poller should move it (the one that staged it
   * moves it itself: two sessions moving one message can leave two copies in the target) */
  | { kind: 'staged'; row: MessageRow; move: boolean }
  | { kind: 'busy'; row: MessageRow };

const lease = (param: number) => `now() + $${param}::int * interval '1 millisecond'`;

export const mailRepository = {
  async mailbox(q: Queryable, mailbox: string): Promise<MailboxRow | undefined> {
    return (await q.query<MailboxRow>('select mailbox, uidvalidity, last_uid from mail_mailboxes where mailbox = $1', [mailbox]))[0];
  },

  /** Records the mailbox's UIDVALIDITY; a different one than stored starts over at UID 0. */
  async syncMailbox(q: Queryable, mailbox: string, uidvalidity: number): Promise<{ row: MailboxRow; previous?: number }> {
    const before = await this.mailbox(q, mailbox);
    if (before && before.uidvalidity === uidvalidity) return { row: before };
    const rows = await q.query<MailboxRow>(
      `insert into mail_mailboxes (mailbox, uidvalidity, last_uid) values ($1, $2, 0)
         on conflict (mailbox) do update set uidvalidity = excluded.uidvalidity, last_uid = 0, updated_at = now()
       returning mailbox, uidvalidity, last_uid`,
      [mailbox, uidvalidity],
    );
    return { row: rows[0], previous: before?.uidvalidity };
  },

  /** Raises the mailbox's last UID (never lowers it), for the same UIDVALIDITY only. */
  async advanceLastUid(q: Queryable, mailbox: string, uidvalidity: number, uid: number): Promise<void> {
    await q.query(
      'update mail_mailboxes set last_uid = greatest(last_uid, $3), updated_at = now() where mailbox = $1 and uidvalidity = $2',
      [mailbox, uidvalidity, uid],
    );
  },

  /**
   * Claims a message for `owner`: a new claim, a claim this owner already had (reconnect) or one
   * whose lease ran out (a poller died), atomically. Otherwise says who has it.
   */
  async claim(
    q: Queryable,
    m: { id: string; mailbox: string; key: string; uidvalidity: number; uid: number; size: number; owner: string; leaseMs: number },
  ): Promise<ClaimResult> {
    const inserted = await q.query<MessageRow>(
      `insert into mail_messages (id, mailbox, message_key, uidvalidity, uid, size, state, owner, lease_until)
       values ($1, $2, $3, $4, $5, $6, 'claimed', $7, ${lease(8)})
       on conflict (mailbox, message_key) do nothing returning *`,
      [m.id, m.mailbox, m.key, m.uidvalidity, m.uid, m.size, m.owner, m.leaseMs],
    );
    if (inserted[0]) return { kind: 'claimed', row: inserted[0], resumed: false };
    const taken = await q.query<MessageRow>(
      `update mail_messages set owner = $3, lease_until = ${lease(4)}, attempts = attempts + 1, uidvalidity = $5, uid = $6, updated_at = now()
        where mailbox = $1 and message_key = $2 and state = 'claimed' and (owner = $3 or lease_until is null or lease_until < now())
       returning *`,
      [m.mailbox, m.key, m.owner, m.leaseMs, m.uidvalidity, m.uid],
    );
    if (taken[0]) return { kind: 'claimed', row: taken[0], resumed: true };
    const row = (
      await q.query<MessageRow & { orphaned: boolean }>(
        `select *, (state = 'moved' or owner = $3 or staged_at < now() - $4::int * interval '1 millisecond') as orphaned
           from mail_messages where mailbox = $1 and message_key = $2`,
        [m.mailbox, m.key, m.owner, m.leaseMs],
      )
    )[0];
    if (!row) throw new Error('mail claim vanished while claiming');
    return row.state === 'claimed' ? { kind: 'busy', row } : { kind: 'staged', row, move: row.orphaned };
  },

  /**
   * New claims for many messages in one statement (one commit per batch). Returns the rows it
   * inserted; a message that has a claim already is not among them (see claim()).
   */
  async claimNew(
    q: Queryable,
    mailbox: string,
    owner: string,
    leaseMs: number,
    list: { id: string; key: string; uidvalidity: number; uid: number; size: number }[],
  ): Promise<MessageRow[]> {
    if (!list.length) return [];
    return q.query<MessageRow>(
      `insert into mail_messages (id, mailbox, message_key, uidvalidity, uid, size, state, owner, lease_until)
       select x.id, $1, x.key, x.uidvalidity, x.uid, x.size, 'claimed', $2, ${lease(3)}
         from unnest($4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[]) as x(id, key, uidvalidity, uid, size)
       on conflict (mailbox, message_key) do nothing returning *`,
      [mailbox, owner, leaseMs, list.map((m) => m.id), list.map((m) => m.key), list.map((m) => m.uidvalidity), list.map((m) => m.uid), list.map((m) => m.size)],
    );
  },

  /** Extends the leases of claims this owner is still working on. */
  async renewLeases(q: Queryable, owner: string, ids: string[], leaseMs: number): Promise<void> {
    if (!ids.length) return;
    await q.query(`update mail_messages set lease_until = ${lease(3)} where owner = $1 and state = 'claimed' and id = any($2::text[])`, [owner, ids, leaseMs]);
  },

  /** Lets others take this owner's unfinished claims at once (graceful stop). */
  async releaseOwner(q: Queryable, owner: string): Promise<number> {
    return (await q.query(`update mail_messages set lease_until = now() where owner = $1 and state = 'claimed' returning 1 as x`, [owner])).length;
  },

  /** The claim failed this time: keep it claimable for the next try and remember why. */
  async recordError(q: Queryable, id: string, owner: string, error: string): Promise<void> {
    await q.query(
      `update mail_messages set lease_until = now(), last_error = $3, updated_at = now() where id = $1 and owner = $2 and state = 'claimed'`,
      [id, owner, error.slice(0, 1000)],
    );
  },

  async files(q: Queryable, messageId: string): Promise<FileRow[]> {
    return q.query<FileRow>('select message_id, slot, intake_id, filename, sha256 from mail_message_files where message_id = $1 order by created_at, slot', [messageId]);
  },

  async filesOf(q: Queryable, messageIds: string[]): Promise<FileRow[]> {
    if (!messageIds.length) return [];
    return q.query<FileRow>(
      'select message_id, slot, intake_id, filename, sha256 from mail_message_files where message_id = any($1::text[]) order by created_at, slot',
      [messageIds],
    );
  },

  async addFile(q: Queryable, f: FileRow): Promise<void> {
    await q.query(
      'insert into mail_message_files (message_id, slot, intake_id, filename, sha256) values ($1, $2, $3, $4, $5) on conflict (message_id, slot) do nothing',
      [f.message_id, f.slot, f.intake_id, f.filename, f.sha256],
    );
  },

  /**
   * Done with the message's content, in one statement: the claim becomes staged (it only has to
   * be moved) with what the message was, its last handed-over file is noted, and the reply its
   * sender may be owed is recorded. False when the claim was lost to another poller.
   */
  async stage(q: Queryable, s: StageInput): Promise<boolean> {
    const rows = await q.query<{ n: number }>(
      `with s as (
         update mail_messages set state = 'staged', outcome = $3, reason = $4, account_id = $5::text, mode = $6::text, sender = $7,
                subject = $8, header_message_id = $9, lease_until = null, staged_at = now(), updated_at = now()
          where id = $1 and owner = $2 and state = 'claimed' returning id
       ), f as (
         insert into mail_message_files (message_id, slot, intake_id, filename, sha256)
         select s.id, x.slot, x.intake_id, x.filename, x.sha256
           from s, unnest($10::text[], $11::text[], $12::text[], $13::text[]) as x(slot, intake_id, filename, sha256)
         on conflict (message_id, slot) do nothing returning 1
       ), r as (
         insert into mail_replies (message_id, account_id, mode, recipient, subject, in_reply_to, refs, state, reason)
         select s.id, $5::text, $6::text, $14, $8, $9, $15, $16::text, $17 from s where $16::text is not null
         on conflict (message_id) do nothing returning 1
       )
       select count(*)::int as n from s`,
      [
        s.id, s.owner, s.outcome, s.reason, s.scope?.accountId ?? null, s.scope?.mode ?? null, s.sender, s.subject?.slice(0, 1000) ?? null,
        s.headerMessageId?.slice(0, 1000) ?? null,
        s.files.map((f) => f.slot), s.files.map((f) => f.intake_id), s.files.map((f) => f.filename), s.files.map((f) => f.sha256),
        s.reply?.recipient ?? null, s.reply?.refs?.join(' ') ?? null, s.reply?.state ?? null, s.reply?.reason ?? null,
      ],
    );
    return rows[0]?.n === 1;
  },

  async markMoved(q: Queryable, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await q.query(`update mail_messages set state = 'moved', moved_at = now(), updated_at = now() where id = any($1::text[]) and state <> 'claimed'`, [ids]);
  },

  /**
   * Forgets handed-over messages after the retention (their claims only guard against
   * re-delivery); staged ones too, which a poller moved but died before it could note it.
   */
  async purgeMoved(q: Queryable, olderThanDays: number): Promise<number> {
    return (
      await q.query(
        `delete from mail_messages where state <> 'claimed' and coalesce(moved_at, staged_at) < now() - make_interval(days => $1::int) returning 1 as x`,
        [olderThanDays],
      )
    ).length;
  },

  async reply(q: Queryable, messageId: string): Promise<ReplyRow | undefined> {
    return (await q.query<ReplyRow>('select * from mail_replies where message_id = $1', [messageId]))[0];
  },

  /** Pending replies whose files are due for a look. */
  async duePending(q: Queryable, limit: number): Promise<ReplyRow[]> {
    return q.query<ReplyRow>(`select * from mail_replies where state = 'pending' and next_check_at <= now() order by next_check_at limit $1`, [limit]);
  },

  async postpone(q: Queryable, messageId: string, ms: number): Promise<void> {
    await q.query(`update mail_replies set next_check_at = ${lease(2)}, updated_at = now() where message_id = $1 and state = 'pending'`, [messageId, ms]);
  },

  /** Moves a reply from pending to another state; false when someone else got there first. */
  async settleReply(q: Queryable, messageId: string, from: ReplyState, to: ReplyState, reason: string | null): Promise<boolean> {
    const rows = await q.query(
      `update mail_replies set state = $3, reason = $4, sent_at = case when $3 in ('sent', 'sending') then coalesce(sent_at, now()) else sent_at end, updated_at = now()
        where message_id = $1 and state = $2 returning 1 as x`,
      [messageId, from, to, reason],
    );
    return rows.length === 1;
  },

  /** A send that failed: back to pending, to be tried again later. */
  async retryReply(q: Queryable, messageId: string, ms: number, reason: string): Promise<void> {
    await q.query(
      `update mail_replies set state = 'pending', sent_at = null, attempts = attempts + 1, reason = $3, next_check_at = ${lease(2)}, updated_at = now()
        where message_id = $1`,
      [messageId, ms, reason.slice(0, 1000)],
    );
  },

  /** Serialises reply decisions per recipient across pollers, for the caller's transaction. */
  async lockRecipient(q: Queryable, recipient: string): Promise<void> {
    await q.query('select pg_advisory_xact_lock(4242005, hashtext($1))', [recipient]);
  },

  async recentSends(q: Queryable, recipient: string, sinceMs: number): Promise<Date[]> {
    const rows = await q.query<{ sent_at: Date }>(
      `select sent_at from mail_replies where recipient = $1 and state in ('sent', 'sending') and sent_at > now() - $2::int * interval '1 millisecond'`,
      [recipient, sinceMs],
    );
    return rows.map((r) => new Date(r.sent_at));
  },
};
