// Every SQL side effect of the intake pipeline. Business queries are scoped through scoped.ts;
// the reconciler's and the purge's system-wide queries are marked as such.
import type { Queryable } from '../db/database.ts';
import { toBuffer } from '../db/database.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { findScoped, pageScoped, scopeWhere, scopeWhereId, type ScopedSource } from '../repositories/scoped.ts';
import type { IntakeChannel, IntakeRecord, IntakeStatus } from './intake-port.ts';

const source: ScopedSource = {
  table: 'intake_records',
  columns: `t.id, s.channel, s.sender, s.filename, s.size, s.sha256, t.status, t.invoice_id, t.document_id, t.reason,
    s.received_at, t.updated_at, t.attached_at, t.match_name`,
  joins: 'join intake_staging s on s.id = t.id',
};

const toRecord = (r: any): IntakeRecord => ({
  id: r.id, channel: r.channel, sender: r.sender, filename: r.filename, size: r.size, sha256: r.sha256, status: r.status,
  invoiceId: r.invoice_id ?? null, documentId: r.document_id ?? null, reason: r.reason ?? null,
  receivedAt: new Date(r.received_at), updatedAt: new Date(r.updated_at), attachedAt: r.attached_at ? new Date(r.attached_at) : null,
});

export interface NewIntake {
  id: string;
  channel: IntakeChannel;
  sender: string;
  filename: string;
  size: number;
  sha256: string;
  /** null for files refused at once: their bytes are never needed */
  content: Buffer | null;
  traceId: string | null;
  status: Extract<IntakeStatus, 'received' | 'failed'>;
  matchName: string | null;
  reason: string | null;
}

/** A staged file as the worker needs it. */
export interface StagedIntake {
  record: IntakeRecord;
  matchName: string | null;
  content: Buffer | null;
  hasContent: boolean;
}

export interface PendingRef {
  seq: number;
  id: string;
  accountId: string;
  mode: Mode;
}

export const intakeRepository = {
  /** Stages the file and creates its record in one statement (atomic without a transaction). */
  async insert(q: Queryable, scope: Scope, f: NewIntake): Promise<IntakeRecord> {
    const rows = await q.query(
      `with s as (
         insert into intake_staging (id, account_id, mode, channel, sender, filename, size, sha256, content, trace_id)
         values ($1, $2::text, $3::text, $4, $5, $6, $7, $8, $9, $10) returning id, received_at
       )
       insert into intake_records (id, account_id, mode, status, match_name, reason)
       select s.id, $2::text, $3::text, $11, $12, $13 from s
       returning updated_at, (select received_at from s) as received_at`,
      [f.id, scope.accountId, scope.mode, f.channel, f.sender, f.filename, f.size, f.sha256, f.content, f.traceId, f.status, f.matchName, f.reason],
      { prepare: true },
    );
    const r = rows[0];
    return {
      id: f.id, channel: f.channel, sender: f.sender, filename: f.filename, size: f.size, sha256: f.sha256, status: f.status,
      invoiceId: null, documentId: null, reason: f.reason, receivedAt: new Date(r.received_at), updatedAt: new Date(r.updated_at), attachedAt: null,
    };
  },

  async find(q: Queryable, scope: Scope, id: string): Promise<IntakeRecord | undefined> {
    const r = await findScoped(q, source, scope, id);
    return r && toRecord(r);
  },

  /** The record and, when `withContent`, the staged bytes (`content` says only whether they exist otherwise). */
  async loadStaged(q: Queryable, scope: Scope, id: string, withContent = true): Promise<StagedIntake | undefined> {
    const w = scopeWhereId(scope, id);
    const content = withContent ? 's.content' : '(s.content is not null) as has_content';
    const r = (await q.query(`select ${source.columns}, ${content} from intake_records t ${source.joins} where ${w.sql}`, w.params, { prepare: true }))[0];
    return r && { record: toRecord(r), matchName: r.match_name ?? null, content: withContent ? toBuffer(r.content) : null, hasContent: withContent ? r.content != null : r.has_content };
  },

  async page(q: Queryable, scope: Scope, req: PageRequest, status?: IntakeStatus): Promise<Page<IntakeRecord>> {
    const page = await pageScoped(q, source, scope, req, { status });
    return { ...page, items: page.items.map(toRecord) };
  },

  async recent(q: Queryable, scope: Scope, limit: number): Promise<IntakeRecord[]> {
    const w = scopeWhere(scope);
    const rows = await q.query(`select ${source.columns} from intake_records t ${source.joins} where ${w.sql} order by t.seq desc limit ${Math.max(1, Math.floor(limit))}`, w.params);
    return rows.map(toRecord);
  },

  async markWaiting(q: Queryable, scope: Scope, id: string, reason: string): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(
      `update intake_records t set status = 'waiting', reason = $4, updated_at = now() where ${w.sql} and t.status <> 'attached'`,
      [...w.params, reason],
      { prepare: true },
    );
  },

  /** Attached: the staged bytes are dropped unless the document it ended on shares them (it was made from this file). */
  async markAttached(q: Queryable, scope: Scope, id: string, invoiceId: string, documentId: string, reason: string | null): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(
      `with r as (
         update intake_records t set status = 'attached', invoice_id = $4, document_id = $5, reason = $6, updated_at = now(), attached_at = now()
         where ${w.sql} returning t.id
       )
       update intake_staging s set content = null from r
       where s.id = r.id and not exists (select 1 from documents d where d.id = $5 and d.staged_id = s.id)`,
      [...w.params, invoiceId, documentId, reason],
      { prepare: true },
    );
  },

  async markFailed(q: Queryable, scope: Scope, id: string, reason: string, invoiceId: string | null = null): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(
      `update intake_records t set status = 'failed', reason = $4, invoice_id = coalesce($5, t.invoice_id), updated_at = now()
       where ${w.sql} and t.status <> 'attached'`,
      [...w.params, reason, invoiceId],
      { prepare: true },
    );
  },

  /** Undoes a staging whose job could not be enqueued (the channel will not acknowledge it). */
  async remove(q: Queryable, scope: Scope, id: string): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(`delete from intake_staging t where ${w.sql}`, w.params);
  },

  /** Pending records of the scope whose name could be this invoice's id or number (case folded). */
  async findPendingNamed(q: Queryable, scope: Scope, names: string[]): Promise<string[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<{ id: string }>(
      `select t.id from intake_records t where ${w.sql} and t.status in ('received', 'waiting') and lower(t.match_name) = any($3::text[])`,
      [...w.params, names.map((n) => n.toLowerCase())],
    );
    return rows.map((r) => r.id);
  },

  /** System-wide (reconciler): pending records after `afterSeq`, oldest first. */
  async listPending(q: Queryable, afterSeq: number, limit: number): Promise<PendingRef[]> {
    const rows = await q.query(
      `select seq, id, account_id, mode from intake_records where status in ('received', 'waiting') and seq > $1 order by seq limit ${Math.floor(limit)}`,
      [afterSeq],
    );
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, accountId: r.account_id, mode: r.mode }));
  },

  /** System-wide (retention): drops the bytes of files that failed before the cutoff. */
  async dropFailedContent(q: Queryable, olderThanDays: number): Promise<number> {
    const rows = await q.query(
      `update intake_staging s set content = null from intake_records r
       where r.id = s.id and r.status = 'failed' and r.updated_at < now() - make_interval(days => $1::int) and s.content is not null returning 1 as x`,
      [olderThanDays],
    );
    return rows.length;
  },
};
