// The SQL of the SMTP receiver's messages: each committed before its 250, read back by the job
// that hands it to the pipeline, marked processed after; the reconciler finds the rest.
import { readBytes, type Queryable } from '../../db/database.ts';
import type { SenderVerdict } from '../../domain/sender-verdict.ts';

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

const COLUMNS = 'id, dedupe_key, size, mail_from, rcpt_to, client_ip, helo, tls, verdict, attempts, received_at, processed_at';

export class SmtpMessageRepository {
  /**
   * Commits a received message. A message with the same dedupe key (the sender retried one whose
   * 250 it never read) is not stored again: its first row's id comes back, `duplicate`.
   */
  async insert(q: Queryable, m: SmtpMessageInput): Promise<{ id: string; duplicate: boolean }> {
    const rows = await q.query<{ id: string }>(
      `insert into smtp_messages (id, dedupe_key, raw, size, mail_from, rcpt_to, client_ip, helo, tls, verdict)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb)
       on conflict (dedupe_key) do nothing returning id`,
      [m.id, m.dedupeKey, m.raw, m.raw.length, m.mailFrom, m.rcptTo, m.clientIp, m.helo, m.tls, JSON.stringify(m.verdict)],
    );
    if (rows[0]) return { id: rows[0].id, duplicate: false };
    const first = await q.query<{ id: string }>('select id from smtp_messages where dedupe_key = $1', [m.dedupeKey]);
    return { id: first[0].id, duplicate: true };
  }

  async get(q: Queryable, id: string): Promise<SmtpMessageRow | undefined> {
    return (await q.query<SmtpMessageRow>(`select ${COLUMNS} from smtp_messages where id = $1`, [id]))[0];
  }

  /** The raw message, read in pieces (docs of readBytes); undefined when the row is gone. */
  async raw(q: Queryable, id: string): Promise<Buffer | undefined> {
    return (await readBytes(q, 'select raw as content from smtp_messages where id = $1', [id])) ?? undefined;
  }

  async noteAttempt(q: Queryable, id: string, error: string | null): Promise<void> {
    await q.query('update smtp_messages set attempts = attempts + 1, last_error = $2 where id = $1', [id, error?.slice(0, 1000) ?? null]);
  }

  async markProcessed(q: Queryable, id: string): Promise<void> {
    await q.query('update smtp_messages set processed_at = now(), last_error = null where id = $1 and processed_at is null', [id]);
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
