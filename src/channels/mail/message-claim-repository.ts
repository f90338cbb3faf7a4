// The SQL of the import mailbox's bookkeeping: its UIDVALIDITY and last UID, the claims on its
// messages, the files each handed over, and their staging (which records the reply owed too).
import type { Queryable } from '../../db/database.ts';
import type { ClaimResult, FileRow, MailboxRow, MessageOutcome, MessageRow, PreClaim, StageInput } from './mail-message-rows.ts';

/** `now()` plus the milliseconds in parameter `$param` */
export const msFromNow = (param: number) => `now() + $${param}::int * interval '1 millisecond'`;

/**
 * The CTE body inserting `claims` whose SMTP message the CTE `committed` (its `id` column)
 * inserted, returning `id, claimed_at, lease_until`; its parameters go after those in `params`. A claim whose
 * key exists already (its message committed again after smtp_messages' retention) is not made.
 */
export function claimsInStatement(params: unknown[], claims: PreClaim[], committed: string): string {
  const at = params.push(
    claims.map((c) => c.id),
    claims.map((c) => c.smtpId),
    claims.map((c) => c.mailbox),
    claims.map((c) => c.key),
    claims.map((c) => c.size),
    claims.map((c) => c.owner),
    claims.map((c) => c.leaseMs),
  );
  const p = (i: number) => `$${at - 7 + i}`;
  return `insert into mail_messages (id, mailbox, message_key, uidvalidity, uid, size, state, owner, lease_until, transport)
    select x.id, x.mailbox, x.key, 0, 0, x.size, 'claimed', x.owner, now() + x.lease_ms * interval '1 millisecond', 'smtp'
      from unnest(${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::bigint[], ${p(6)}::text[], ${p(7)}::int[])
           as x(id, smtp_id, mailbox, key, size, owner, lease_ms)
      join ${committed} m on m.id = x.smtp_id
    on conflict (mailbox, message_key) do nothing returning id, claimed_at, lease_until`;
}

export class MessageClaimRepository {
  /** Records the mailbox's UIDVALIDITY; a different one than stored starts over at UID 0. */
  async syncMailbox(q: Queryable, mailbox: string, uidvalidity: number): Promise<{ row: MailboxRow; previous?: number }> {
    const before = (await q.query<MailboxRow>('select mailbox, uidvalidity, last_uid from mail_mailboxes where mailbox = $1', [mailbox]))[0];
    if (before && before.uidvalidity === uidvalidity) return { row: before };
    const rows = await q.query<MailboxRow>(
      `insert into mail_mailboxes (mailbox, uidvalidity, last_uid) values ($1, $2, 0)
         on conflict (mailbox) do update set uidvalidity = excluded.uidvalidity, last_uid = 0, updated_at = now()
       returning mailbox, uidvalidity, last_uid`,
      [mailbox, uidvalidity],
    );
    return { row: rows[0], previous: before?.uidvalidity };
  }

  /** Raises the mailbox's last UID (never lowers it), for the same UIDVALIDITY only. */
  async advanceLastUid(q: Queryable, mailbox: string, uidvalidity: number, uid: number): Promise<void> {
    await q.query('update mail_mailboxes set last_uid = greatest(last_uid, $3), updated_at = now() where mailbox = $1 and uidvalidity = $2', [
      mailbox,
      uidvalidity,
      uid,
    ]);
  }

  /**
   * Claims a message for `owner`: a new claim, a claim this owner already had (reconnect) or one
   * whose lease ran out (a poller died), atomically. Otherwise says who has it.
   */
  async claim(
    q: Queryable,
    m: {
      id: string;
      mailbox: string;
      transport?: 'imap' | 'smtp';
      key: string;
      uidvalidity: number;
      uid: number;
      size: number;
      owner: string;
      leaseMs: number;
    },
  ): Promise<ClaimResult> {
    const inserted = await q.query<MessageRow>(
      `insert into mail_messages (id, mailbox, message_key, uidvalidity, uid, size, state, owner, lease_until, transport)
       values ($1, $2, $3, $4, $5, $6, 'claimed', $7, ${msFromNow(8)}, $9)
       on conflict (mailbox, message_key) do nothing returning *`,
      [m.id, m.mailbox, m.key, m.uidvalidity, m.uid, m.size, m.owner, m.leaseMs, m.transport ?? 'imap'],
    );
    if (inserted[0]) return { kind: 'claimed', row: inserted[0], resumed: false };
    const taken = await q.query<MessageRow>(
      `update mail_messages set owner = $3, lease_until = ${msFromNow(4)}, attempts = attempts + 1, uidvalidity = $5, uid = $6, updated_at = now()
        where mailbox = $1 and message_key = $2 and state = 'claimed' and (owner = $3 or lease_until is null or lease_until < now())
       returning *`,
      [m.mailbox, m.key, m.owner, m.leaseMs, m.uidvalidity, m.uid],
    );
    if (taken[0]) return { kind: 'claimed', row: taken[0], resumed: true };
    // the operator's repair: a failed (or ignored) message moved back into the mailbox. It has a
    // UID above the highest one the mailbox had when it was moved (a copy that was there already
    // does not), so it is claimed afresh: its old file notes and unsent reply go, its old intake
    // records stay as history. A processed message that comes back is only moved (below).
    const again = await q.query<MessageRow & { previous_outcome: MessageOutcome; previous_reason: string | null }>(
      `with r as (
         update mail_messages m set state = 'claimed', owner = $3, lease_until = ${msFromNow(4)}, attempts = m.attempts + 1, uid = $6, outcome = null, reason = null,
                last_error = null, staged_at = null, moved_at = null, moved_top_uid = null, claimed_at = now(), updated_at = now()
           from mail_messages o
          where o.id = m.id and m.mailbox = $1 and m.message_key = $2 and m.state = 'moved' and m.outcome in ('failed', 'ignored')
            and m.uidvalidity = $5 and m.moved_top_uid is not null and $6 > m.moved_top_uid
         returning m.*, o.outcome as previous_outcome, o.reason as previous_reason
       ), f as (
         delete from mail_message_files where message_id in (select id from r)
       ), p as (
         delete from mail_replies where message_id in (select id from r) and state not in ('sent', 'sending')
       )
       select * from r`,
      [m.mailbox, m.key, m.owner, m.leaseMs, m.uidvalidity, m.uid],
    );
    if (again[0]) {
      const { previous_outcome, previous_reason, ...row } = again[0];
      return { kind: 'claimed', row, resumed: false, again: { outcome: previous_outcome, reason: previous_reason } };
    }
    const row = (
      await q.query<MessageRow & { orphaned: boolean }>(
        `select *, (state = 'moved' or owner = $3 or staged_at < now() - $4::int * interval '1 millisecond') as orphaned
           from mail_messages where mailbox = $1 and message_key = $2`,
        [m.mailbox, m.key, m.owner, m.leaseMs],
      )
    )[0];
    if (!row) throw new Error('mail claim vanished while claiming');
    return row.state === 'claimed' ? { kind: 'busy', row } : { kind: 'staged', row, move: row.orphaned };
  }

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
       select x.id, $1, x.key, x.uidvalidity, x.uid, x.size, 'claimed', $2, ${msFromNow(3)}
         from unnest($4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[]) as x(id, key, uidvalidity, uid, size)
       on conflict (mailbox, message_key) do nothing returning *`,
      [mailbox, owner, leaseMs, list.map((m) => m.id), list.map((m) => m.key), list.map((m) => m.uidvalidity), list.map((m) => m.uid), list.map((m) => m.size)],
    );
  }

  /** Extends the leases of claims this owner is still working on. */
  async renewLeases(q: Queryable, owner: string, ids: string[], leaseMs: number): Promise<void> {
    if (!ids.length) return;
    await q.query(`update mail_messages set lease_until = ${msFromNow(3)} where owner = $1 and state = 'claimed' and id = any($2::text[])`, [
      owner,
      ids,
      leaseMs,
    ]);
  }

  /** Lets others take this owner's unfinished claims at once (graceful stop). */
  async releaseOwner(q: Queryable, owner: string): Promise<number> {
    return (await q.query(`update mail_messages set lease_until = now() where owner = $1 and state = 'claimed' returning 1 as x`, [owner])).length;
  }

  /** The claim failed this time: keep it claimable for the next try and remember why. */
  async recordError(q: Queryable, id: string, owner: string, error: string): Promise<void> {
    await q.query(`update mail_messages set lease_until = now(), last_error = $3, updated_at = now() where id = $1 and owner = $2 and state = 'claimed'`, [
      id,
      owner,
      error.slice(0, 1000),
    ]);
  }

  async files(q: Queryable, messageId: string): Promise<FileRow[]> {
    return q.query<FileRow>(
      'select message_id, slot, intake_id, filename, sha256, origin from mail_message_files where message_id = $1 order by created_at, slot',
      [messageId],
    );
  }

  async addFile(q: Queryable, f: FileRow): Promise<void> {
    await q.query(
      'insert into mail_message_files (message_id, slot, intake_id, filename, sha256, origin) values ($1, $2, $3, $4, $5, $6) on conflict (message_id, slot) do nothing',
      [f.message_id, f.slot, f.intake_id, f.filename, f.sha256, f.origin ?? null],
    );
  }

  /**
   * Done with the message's content, in one statement: the claim becomes staged (it only has to
   * be moved; `moved`: moved already) with what the message was, its last handed-over file is
   * noted, and the reply its sender may be owed is recorded. False when the claim was lost to
   * another poller.
   */
  async stage(q: Queryable, input: StageInput): Promise<boolean> {
    const params: unknown[] = [
      input.id,
      input.owner,
      input.outcome,
      input.reason,
      input.scope?.accountId ?? null,
      input.scope?.mode ?? null,
      input.sender,
      input.subject?.slice(0, 1000) ?? null,
      input.headerMessageId?.slice(0, 1000) ?? null,
      input.files.map((f) => f.slot),
      input.files.map((f) => f.intake_id),
      input.files.map((f) => f.filename),
      input.files.map((f) => f.sha256),
      input.reply?.recipient ?? null,
      input.reply?.refs?.join(' ') ?? null,
      input.reply?.state ?? null,
      input.reply?.reason ?? null,
      input.files.map((f) => f.origin ?? null),
      input.verdict ? JSON.stringify(input.verdict) : null,
      input.reply?.facts === true,
      input.moved === true,
    ];
    // e.g. the SMTP message marked processed by the commit of its last claim's staging
    const also = input.also ? `, a as (${input.also(params)})` : '';
    const rows = await q.query<{ n: number }>(
      `with s as (
         update mail_messages set state = case when $21::boolean then 'moved' else 'staged' end, outcome = $3, reason = $4, account_id = $5::text,
                mode = $6::text, sender = $7, subject = $8, header_message_id = $9, sender_verdict = $19::jsonb, lease_until = null, staged_at = now(),
                moved_at = case when $21::boolean then now() end, moved_top_uid = case when $21::boolean then uid end, updated_at = now()
          where id = $1 and owner = $2 and state = 'claimed' returning id
       ), f as (
         insert into mail_message_files (message_id, slot, intake_id, filename, sha256, origin)
         select s.id, x.slot, x.intake_id, x.filename, x.sha256, x.origin
           from s, unnest($10::text[], $11::text[], $12::text[], $13::text[], $18::text[]) as x(slot, intake_id, filename, sha256, origin)
         on conflict (message_id, slot) do nothing returning 1
       ), r as (
         insert into mail_replies (message_id, account_id, mode, recipient, subject, in_reply_to, refs, state, reason, facts)
         select s.id, $5::text, $6::text, $14, $8, $9, $15, $16::text, $17, $20::boolean from s where $16::text is not null
         on conflict (message_id) do nothing returning 1
       )${also}
       select count(*)::int as n from s`,
      params,
    );
    return rows[0]?.n === 1;
  }

  /** `topUid`: the highest UID the mailbox had (a message seen above it later came back: see claim()). */
  async markMoved(q: Queryable, ids: string[], topUid: number): Promise<void> {
    if (!ids.length) return;
    await q.query(
      `update mail_messages set state = 'moved', moved_at = now(), moved_top_uid = greatest(uid, $2::bigint), updated_at = now() where id = any($1::text[]) and state <> 'claimed'`,
      [ids, topUid],
    );
  }

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
  }
}
