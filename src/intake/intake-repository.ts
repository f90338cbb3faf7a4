// Every SQL side effect of the intake pipeline. Business queries are scoped through scoped.ts;
// the reconciler's and the purge's system-wide queries are marked as such. Every statement that
// sets a record's status also writes its line in intake_history (see HISTORY).
import type { Queryable } from '../db/database.ts';
import { StoreMissingError, type DocumentStore } from '../storage/document-store.ts';
import { DomainError } from '../domain/errors.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Mode, Scope } from '../domain/scope.ts';
import { findWithTombstone, pageScoped, scopeWhere, scopeWhereId, type Found } from '../repositories/scoped.ts';
import { invoiceByNumberSql } from '../repositories/invoice-repository.ts';
import { CHANGED, source, toRecord, type IntakeRecordRow } from './intake-record-row.ts';
import type { ImportRecord, IntakeStatus, MatchedBy } from '../domain/intake.ts';
import { reasonColumns, type IntakeReason } from '../domain/intake-reasons.ts';
import type { SenderVerdict } from '../domain/sender-verdict.ts';
import { insertStaged, insertStagedMany } from './staging-repository.ts';
import { dropFailedContent } from './failed-retention.ts';

export interface NewImport extends Pick<ImportRecord, 'id' | 'channel' | 'sender' | 'filename' | 'size' | 'sha256'> {
  reason: IntakeReason | null;
  /** null for files refused at once: their bytes are never needed */
  content: Buffer | null;
  /** the object `content` is in the document store, put there before the row is written (staging-group.ts) */
  contentSha256?: string | null;
  /** `content` is not in the store yet: the statement that stages the row writes it (a store with inStatement, the database driver) */
  contentPending?: boolean;
  traceId: string | null;
  status: Extract<IntakeStatus, 'received' | 'failed' | 'unpacked' | 'held'>;
  matchName: string | null;
  /** how many files the e-mail carried (mail only) */
  messageFiles?: number | null;
  /** the archive's record, for a file unpacked from a ZIP archive */
  archiveId?: string | null;
  subject: string | null;
  /** mail only: who sent the message */
  senderVerdict?: SenderVerdict | null;
  uploadKeyId?: string | null;
  /** its intake step runs in this process, without a job (local-runs.ts): the record's lease, so the reconciler leaves it alone meanwhile */
  runLeaseMs?: number | null;
}

/** A row of loadStaged: the staged object's SHA-256, and `invoice_by_number` when asked for. */
type StagedRow = IntakeRecordRow & { subject: string | null; message_files: number | null; content_sha256: string | null; invoice_by_number?: string | null };

/** A record with the account and mode it belongs to (operators' view). */
export interface AdminImportRecord extends ImportRecord {
  accountId: string;
  mode: Mode;
}

/** A staged file as the worker needs it. */
export interface StagedImport {
  record: ImportRecord;
  matchName: string | null;
  subject: string | null;
  /** how many files the e-mail carried (mail only) */
  messageFiles: number | null;
  content: Buffer | null;
  hasContent: boolean;
  /** with `byNumber`: the live invoice its match name names by the spec's number rule (exact, else case-insensitive when unambiguous) */
  invoiceByNumber?: string | null;
}

// the invoice a match name names, by the core's rule and SQL (repositories/invoice-repository.ts)
const INVOICE_BY_NUMBER = `${invoiceByNumberSql('t.account_id', 't.mode', 't.match_name')} as invoice_by_number`;

export interface PendingRef {
  seq: number;
  id: string;
  accountId: string;
  mode: Mode;
}

/**
 * The history line of each record in `r`, written by the statement that changed the status, so
 * the line commits with the change or not at all. clock_timestamp(), not now() (the transaction's
 * start): the time the change was made, in the order the changes were made.
 */
const HISTORY = `insert into intake_history (intake_id, account_id, mode, at, status, reason, reason_code, reason_params)
       select r.id, r.account_id, r.mode, clock_timestamp(), r.status, r.reason, r.reason_code, r.reason_params from r`;

export class IntakeRepository {
  /** where the staged bytes are (rows hold their SHA-256) */
  constructor(private readonly store: Pick<DocumentStore, 'get' | 'inStatement'>) {}

  /** Stages the file and creates its record and its first history line in one statement (atomic without a transaction). */
  insert(q: Queryable, scope: Scope, f: NewImport): Promise<ImportRecord> {
    return insertStaged(q, scope, f, HISTORY, this.store.inStatement);
  }

  /** Stages several files (of any scopes) in one statement, each as insert() does, all or none; records in the order given. */
  insertMany(q: Queryable, files: { scope: Scope; f: NewImport }[]): Promise<ImportRecord[]> {
    return insertStagedMany(q, files, HISTORY, this.store.inStatement);
  }

  find(q: Queryable, scope: Scope, id: string): Promise<Found<ImportRecord>> {
    return findWithTombstone(q, source, scope, id, toRecord);
  }

  /**
   * The record and, when `withContent`, the staged bytes from the document store (`hasContent` says only whether they exist
   * otherwise); `byNumber`: also the invoice its name names (the worker's first question, in the same round trip).
   */
  async loadStaged(q: Queryable, scope: Scope, id: string, withContent = true, byNumber = false): Promise<StagedImport | undefined> {
    const w = scopeWhereId(scope, id);
    const sql = `select ${source.columns}, s.subject, s.message_files, s.content_sha256${byNumber ? `, ${INVOICE_BY_NUMBER}` : ''} from intake_records t ${source.joins} where ${w.sql} and t.deleted_at is null`;
    const r = (await q.query<StagedRow>(sql, w.params, { prepare: true }))[0];
    if (!r) return undefined;
    const content = withContent && r.content_sha256 ? await this.stagedBytes(r.content_sha256) : null;
    return {
      record: toRecord(r),
      matchName: r.match_name ?? null,
      subject: r.subject ?? null,
      messageFiles: r.message_files ?? null,
      content,
      hasContent: r.content_sha256 != null && (!withContent || content != null),
      ...(byNumber ? { invoiceByNumber: r.invoice_by_number ?? null } : {}),
    };
  }

  /** The bytes from the store; null when the object is missing (a broken promise: the file fails as staged_missing, logged by the store's caller). */
  private async stagedBytes(sha256: string): Promise<Buffer | null> {
    try {
      return await this.store.get(sha256);
    } catch (e) {
      if (e instanceof StoreMissingError) return null;
      throw e; // unavailable: the job (or the request) is tried again
    }
  }

  /** System-wide (operators): every account's records, newest first. */
  async pageAll(q: Queryable, req: PageRequest, status?: IntakeStatus): Promise<Page<AdminImportRecord>> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (status) params.push(status), where.push(`t.status = $${params.length}`);
    if (req.from) {
      const cursor = await q.query<{ seq: number }>('select seq from intake_records where id = $1', [req.from]);
      if (!cursor[0]) throw DomainError.invalid(`Field from names no item of this list: ${req.from}`, 'from');
      params.push(cursor[0].seq);
      where.push(`t.seq <= $${params.length}`);
    }
    const rows = await q.query<IntakeRecordRow & { account_id: string; mode: Mode }>(
      `select ${source.columns}, t.account_id, t.mode from intake_records t ${source.joins} ${where.length ? `where ${where.join(' and ')}` : ''} order by t.seq desc limit ${req.limit + 1}`,
      params,
    );
    const items = rows.slice(0, req.limit).map((r) => ({ ...toRecord(r), accountId: r.account_id, mode: r.mode }));
    return { items, ...(rows.length > req.limit ? { next: rows[req.limit].id } : {}) };
  }

  /** `uploadKeyId`: only the files that upload key brought */
  async page(q: Queryable, scope: Scope, req: PageRequest, status?: IntakeStatus, uploadKeyId?: string): Promise<Page<ImportRecord>> {
    const page = await pageScoped<IntakeRecordRow>(q, source, scope, req, { status, upload_key_id: uploadKeyId });
    return { ...page, items: page.items.map(toRecord) };
  }

  async archiveFiles(q: Queryable, scope: Scope, archiveId: string): Promise<ImportRecord[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<IntakeRecordRow>(
      `select ${source.columns} from intake_records t ${source.joins} where ${w.sql} and s.archive_id = $3 and t.deleted_at is null order by t.seq`,
      [...w.params, archiveId],
    );
    return rows.map(toRecord);
  }

  async recent(q: Queryable, scope: Scope, limit: number): Promise<ImportRecord[]> {
    const w = scopeWhere(scope);
    const rows = await q.query<IntakeRecordRow>(
      `select ${source.columns} from intake_records t ${source.joins} where ${w.sql} and t.deleted_at is null order by t.seq desc limit ${Math.max(1, Math.floor(limit))}`,
      w.params,
    );
    return rows.map(toRecord);
  }

  /**
   * Waiting, with a line only when it starts waiting: a later try that only updates the reason
   * writes none. The old status is read under the row's lock, so two runs at once write one line.
   */
  async markWaiting(q: Queryable, scope: Scope, id: string, reason: IntakeReason): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(
      `with r as (
         update intake_records t set status = 'waiting', reason = $4, reason_code = $5, reason_params = $6::jsonb, updated_at = now()
         from (select t.id, t.status from intake_records t where ${w.sql} and t.status <> 'attached' and t.deleted_at is null for update) prior
         where t.id = prior.id returning ${CHANGED}, prior.status as prior_status
       )
       ${HISTORY} where r.prior_status <> 'waiting'`,
      [...w.params, reason.text, ...reasonColumns(reason)],
      { prepare: true },
    );
  }

  /**
   * Attached, once: a second run (two workers, or a hand and a worker at once) changes nothing.
   * The staged bytes are dropped unless the document it ended on shares them (it was made from this file).
   * Its history line says `history` (the evidence used and overruled) where given, else the reason.
   */
  async markAttached(
    q: Queryable,
    scope: Scope,
    id: string,
    invoiceId: string,
    documentId: string,
    reason: IntakeReason | null,
    matchedBy: MatchedBy,
    history?: IntakeReason,
  ): Promise<void> {
    const w = scopeWhereId(scope, id);
    await q.query(
      `with r as (
         update intake_records t set status = 'attached', invoice_id = $4, document_id = $5, reason = $6, matched_by = $7, updated_at = now(), attached_at = now(), reason_code = $9, reason_params = $10::jsonb
         where ${w.sql} and t.status <> 'attached' returning ${CHANGED}
       ), dropped as (
         update intake_staging s set content_sha256 = null from r
         where s.id = r.id and not exists (select 1 from documents d where d.id = $5 and d.staged_id = s.id)
       )
       insert into intake_history (intake_id, account_id, mode, at, status, reason, reason_code, reason_params)
       select r.id, r.account_id, r.mode, clock_timestamp(), r.status, coalesce($8, r.reason), case when $8::text is null then r.reason_code else $11 end, case when $8::text is null then r.reason_params else $12::jsonb end from r`,
      [...w.params, invoiceId, documentId, reason?.text ?? null, matchedBy, history?.text ?? null, ...reasonColumns(reason), ...reasonColumns(history ?? null)],
      { prepare: true },
    );
  }

  /** Failed, with a line each time it applies (a file that fails again says why again); never an attached record. */
  /** false when it did not apply (attached or discarded meanwhile) */
  async markFailed(q: Queryable, scope: Scope, id: string, reason: IntakeReason, invoiceId: string | null = null): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    const rows = await q.query(
      `with r as (
         update intake_records t set status = 'failed', reason = $4, reason_code = $6, reason_params = $7::jsonb, invoice_id = coalesce($5, t.invoice_id), updated_at = now()
         where ${w.sql} and t.status <> 'attached' and t.deleted_at is null returning ${CHANGED}
       )
       ${HISTORY} returning intake_id`,
      [...w.params, reason.text, invoiceId, ...reasonColumns(reason)],
      { prepare: true },
    );
    return rows.length > 0;
  }

  /** A failed file goes back to the queue's start (retry); false when it was not failed any more. */
  /** Back to received, from failed (a retry) or held (released): false when it was not in that status. */
  async markRetried(q: Queryable, scope: Scope, id: string, from: 'failed' | 'held' = 'failed'): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    const rows = await q.query(
      `with r as (
         update intake_records t set status = 'received', reason = null, reason_code = null, reason_params = null, updated_at = now() where ${w.sql} and t.status = '${from}' and t.deleted_at is null returning ${CHANGED}
       )
       ${HISTORY} returning intake_id`,
      w.params,
    );
    return rows.length > 0;
  }

  /** Discarded: a tombstone stays (410), the staged bytes go; false when it was attached meanwhile. */
  async discard(q: Queryable, scope: Scope, id: string): Promise<boolean> {
    const w = scopeWhereId(scope, id);
    const rows = await q.query(
      `with r as (
         update intake_records t set deleted_at = now(), updated_at = now() where ${w.sql} and t.status <> 'attached' and t.deleted_at is null returning t.id
       )
       update intake_staging s set content_sha256 = null from r where s.id = r.id returning s.id`,
      w.params,
    );
    return rows.length > 0;
  }

  /** Undoes a staging whose job could not be enqueued (the channel will not acknowledge it); an archive's files go with it. */
  async remove(q: Queryable, scope: Scope, id: string): Promise<void> {
    const w = scopeWhere(scope);
    await q.query(`delete from intake_staging t where ${w.sql} and (t.id = $3 or t.archive_id = $3)`, [...w.params, id]);
  }

  /** System-wide (reconciler): pending records after `afterSeq`, oldest first; not those a process runs under its lease (local-runs.ts). */
  async listPending(q: Queryable, afterSeq: number, limit: number): Promise<PendingRef[]> {
    const rows = await q.query<{ seq: number | string; id: string; account_id: string; mode: Mode }>(
      `select seq, id, account_id, mode from intake_records where status in ('received', 'waiting') and deleted_at is null and seq > $1
         and (run_lease_until is null or run_lease_until < now()) order by seq limit ${Math.floor(limit)}`,
      [afterSeq],
    );
    return rows.map((r) => ({ seq: Number(r.seq), id: r.id, accountId: r.account_id, mode: r.mode }));
  }

  /** System-wide (retention): drops the bytes of files that failed before the cutoff; how many (failed-retention.ts). */
  dropFailedContent(q: Queryable, olderThanDays: number, batch?: number): Promise<number> {
    return dropFailedContent(q, olderThanDays, batch);
  }
}
