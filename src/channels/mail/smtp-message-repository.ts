// The SQL of the SMTP receiver's messages: each committed before its 250, read back by the job
// that hands it to the pipeline, marked processed after; the reconciler finds the rest.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { DocumentStore } from '../../storage/document-store.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';
import { claimsInStatement } from './message-claim-repository.ts';
import type { PreClaim } from './mail-message-rows.ts';

export interface SmtpMessageInput {
  id: string;
  dedupeKey: string;
  raw: Buffer;
  mailFrom: string;
  rcptTo: string[];
  clientIp: string;
  helo: string | null;
  tls: boolean;
  verdict: SenderVerdict;
}

export interface SmtpMessageRow {
  id: string;
  dedupe_key: string;
  size: number;
  mail_from: string;
  rcpt_to: string[];
  client_ip: string;
  helo: string | null;
  tls: boolean;
  verdict: SenderVerdict;
  attempts: number;
  received_at: Date;
  processed_at: Date | null;
}

/**
 * A message whose raw bytes are in the store, or (`rawPending`) to be written by insertMany's
 * statement. `claims`: the mail claims its own process's run will use, made by that statement too.
 */
export type PutMessage = SmtpMessageInput & { rawSha256: string; rawPending?: boolean; claims?: PreClaim[] };

/** What insertMany did with one message: its row's id (the first one's for a duplicate), and the claims it made of those asked for. */
export interface CommittedRow {
  id: string;
  duplicate: boolean;
  /** claim id -> its claimed_at and lease_until, as the database set them */
  claimed?: Map<string, { claimedAt: Date; leaseUntil: Date }>;
}

/** insertMany's VALUES: a multi-row list infers no types, so each parameter is cast */
const VALUE_TYPES = ['text', 'text', 'text', 'bigint', 'text', 'text[]', 'text', 'text', 'boolean', 'jsonb'];

const COLUMNS = 'id, dedupe_key, size, mail_from, rcpt_to, client_ip, helo, tls, verdict, attempts, received_at, processed_at';

export class SmtpMessageRepository {
  /** where the raw messages are (rows hold their SHA-256) */
  constructor(private readonly store: Pick<DocumentStore, 'put' | 'get' | 'inStatement'>) {}

  /**
   * The raw message into the store, durable before any row points at it (the receiver's limit
   * applied while it came in); with a store whose objects are database rows, written by
   * insertMany's statement instead (`rawPending`): one round trip and one commit fewer before the 250.
   */
  async putRaw(m: SmtpMessageInput): Promise<PutMessage> {
    if (this.store.inStatement) return { ...m, rawSha256: createHash('sha256').update(m.raw).digest('hex'), rawPending: true };
    return { ...m, rawSha256: (await this.store.put(m.raw, { maxBytes: m.raw.length })).sha256 };
  }

  /**
   * Commits received messages (their raw bytes put already) in one statement: the group commit of
   * the sessions whose messages end at once. All or none of them are committed. A message with
   * the same dedupe key as one committed (the sender retried one whose 250 it never read) is not
   * stored again: its first row's id comes back, `duplicate`, also when that is in the same group.
   */
  async insertMany(q: Queryable, list: PutMessage[]): Promise<CommittedRow[]> {
    const params: unknown[] = [];
    const values = list.map((m) => {
      const at = params.push(m.id, m.dedupeKey, m.rawSha256, m.raw.length, m.mailFrom, m.rcptTo, m.clientIp, m.helo, m.tls, JSON.stringify(m.verdict)) - 10;
      return `(${VALUE_TYPES.map((t, i) => `$${at + i + 1}::${t}`).join(', ')})`;
    });
    const pending = list.filter((m) => m.rawPending).map((m) => ({ sha256: m.rawSha256, bytes: m.raw }));
    if (pending.length && !this.store.inStatement) throw new Error('A raw message whose bytes are pending, but no store to write them in the statement');
    const ctes: string[] = [];
    // a duplicate's raw message is written all the same (it renews the object, which its first row points at)
    if (pending.length) ctes.push(`o as (${this.store.inStatement!.sql(params, pending)})`);
    const insert = `insert into smtp_messages (id, dedupe_key, raw_sha256, size, mail_from, rcpt_to, client_ip, helo, tls, verdict)
       values ${values.join(', ')}
       on conflict (dedupe_key) do nothing returning id`;
    const claims = list.flatMap((m) => m.claims ?? []);
    let text: string;
    if (claims.length) {
      // the claims of the rows inserted commit with them: the message's run needs no statement of its own to claim
      ctes.push(`m as (${insert})`, `c as (${claimsInStatement(params, claims, 'm')})`);
      text = `with ${ctes.join(', ')}
        select id, null::timestamptz as claimed_at, null::timestamptz as lease_until from m
        union all select c.id, c.claimed_at, c.lease_until from c`;
    } else text = `${ctes.length ? `with ${ctes.join(', ')} ` : ''}${insert}`;
    const answer = await q.query<{ id: string; claimed_at: Date | null; lease_until: Date | null }>(text, params, { prepare: true });
    const rows = answer.filter((r) => !r.claimed_at);
    const claimed = new Map(answer.flatMap((r) => (r.claimed_at ? [[r.id, { claimedAt: r.claimed_at, leaseUntil: r.lease_until! }] as const] : [])));
    const inserted = new Set(rows.map((r) => r.id));
    const again = list.filter((m) => !inserted.has(m.id));
    const first = again.length
      ? new Map(
          (
            await q.query<{ id: string; dedupe_key: string }>('select id, dedupe_key from smtp_messages where dedupe_key = any($1::text[])', [
              again.map((m) => m.dedupeKey),
            ])
          ).map((r) => [r.dedupe_key, r.id]),
        )
      : undefined;
    return list.map((m) => {
      if (inserted.has(m.id)) {
        const made = m.claims?.flatMap((c) => (claimed.has(c.id) ? [[c.id, claimed.get(c.id)!] as const] : []));
        return made?.length ? { id: m.id, duplicate: false, claimed: new Map(made) } : { id: m.id, duplicate: false };
      }
      const id = first?.get(m.dedupeKey);
      if (!id) throw new Error(`smtp message ${m.id} was neither inserted nor found`);
      return { id, duplicate: true };
    });
  }

  async get(q: Queryable, id: string): Promise<SmtpMessageRow | undefined> {
    return (await q.query<SmtpMessageRow>(`select ${COLUMNS} from smtp_messages where id = $1`, [id]))[0];
  }

  /** The raw message from the document store; undefined when the row (or its pointer) is gone. */
  async raw(q: Queryable, id: string): Promise<Buffer | undefined> {
    const r = (await q.query<{ raw_sha256: string | null }>('select raw_sha256 from smtp_messages where id = $1', [id]))[0];
    return r?.raw_sha256 ? this.store.get(r.raw_sha256) : undefined;
  }

  async noteAttempt(q: Queryable, id: string, error: string | null): Promise<void> {
    await q.query('update smtp_messages set attempts = attempts + 1, last_error = $2 where id = $1', [id, error?.slice(0, 1000) ?? null]);
  }

  /**
   * The CTE body marking message `id` processed inside another statement, once that statement's
   * CTE `staged` has a row (MessageClaimRepository.stage's `also`: the staging of its last claim).
   */
  processedInStatement(params: unknown[], id: string, staged: string): string {
    const at = params.push(id);
    return `update smtp_messages set processed_at = now(), last_error = null where id = $${at}::text and processed_at is null and exists (select 1 from ${staged}) returning 1`;
  }

  /** Marks messages processed (one statement for the runs that end at once: smtp-workers.ts). */
  async markProcessed(q: Queryable, ids: string[]): Promise<void> {
    await q.query('update smtp_messages set processed_at = now(), last_error = null where id = any($1::text[]) and processed_at is null', [ids]);
  }

  /** Committed, not processed, and older than `olderThanMs` (their job may be lost): the reconciler's. */
  async unprocessed(q: Queryable, olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await q.query<{ id: string }>(
      `select id from smtp_messages where processed_at is null and received_at < now() - $1::int * interval '1 millisecond' order by received_at limit $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Forgets processed messages after the retention (the mail claims' retention). */
  async purgeProcessed(q: Queryable, olderThanDays: number): Promise<number> {
    return (await q.query(`delete from smtp_messages where processed_at < now() - make_interval(days => $1::int) returning 1 as x`, [olderThanDays])).length;
  }
}
