import type { Queryable } from '../db/database.ts';
import { readBytes, toBuffer } from '../db/database.ts';
import type { MatchedBy } from '../domain/intake.ts';
import { EVIDENCE_RANK, REPLACING_RANK } from '../domain/match-decision.ts';
import type { DocumentMeta } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';
import { scopeWhere, scopeWhereId, type Found } from './scoped.ts';

const META = 't.id, t.invoice_id, t.filename, t.media_type, t.size, t.sha256, t.source, t.created_at, t.deleted_at, t.matched_by, t.original_name';

/** A row of META. */
interface DocumentRow {
  id: string;
  invoice_id: string;
  filename: string;
  media_type: string;
  size: number;
  sha256: string;
  source: string;
  created_at: Date;
  deleted_at: Date | null;
  matched_by: MatchedBy | null;
  original_name: string | null;
}

/** What attachSql returns: its counts, and the document it ended on (every column null when there is none). */
interface AttachRow extends DocumentRow {
  found: number;
  invoice_deleted: number;
  inserted: number;
  kept: number;
  /** rows the follow-up changed (0 without one) */
  followed: number;
}

/**
 * More of the same statement after an attach (the intake record it came from marked attached): CTEs
 * that may read `ins` (the document inserted) and `same` (the live one that had these bytes), each
 * with the document columns and `staged_id`, and must end in a CTE `followed` whose rows it counts.
 * Its parameters are numbered from $15 (FOLLOW_UP_FIRST_PARAM); `ctes` should be one constant string
 * (the statement is built once for each).
 */
export interface AttachFollowUp {
  ctes: string;
  params: unknown[];
}

export const FOLLOW_UP_FIRST_PARAM = 15;

const toMeta = (r: DocumentRow): DocumentMeta => ({
  id: r.id, invoiceId: r.invoice_id, filename: r.filename, mediaType: r.media_type, size: r.size, sha256: r.sha256, source: r.source, createdAt: r.created_at,
  matchedBy: r.matched_by ?? null, originalName: r.original_name ?? null,
});

/** A document's evidence rank in SQL (domain/match-decision.ts): documents sent by the API (null) rank with a person's. */
const rankOf = (col: string) =>
  `case ${col} ${Object.entries(EVIDENCE_RANK).map(([by, rank]) => `when '${by}' then ${rank}`).join(' ')} else ${EVIDENCE_RANK.manual} end`;

export interface NewDocument extends Omit<DocumentMeta, 'createdAt'> {
  /** the XML e-invoice it was rendered from */
  original: { bytes: Uint8Array; name: string } | null;
  /** the bytes, or the intake file whose staged bytes they are (shared, not copied) */
  content: { bytes: Buffer } | { stagedIntakeId: string };
}

export type AttachOutcome =
  | { status: 'no-invoice' }
  | { status: 'invoice-deleted' }
  | { status: 'unchanged' | 'attached'; document: DocumentMeta }
  /** the live document was attached by stronger evidence: it stays */
  | { status: 'kept'; document: DocumentMeta };

/** Frees the staged bytes that the tombstoned documents in CTE `gone` shared. */
const FREE_STAGED = (gone: string) => `update intake_staging s set content = null from ${gone} where s.id = ${gone}.staged_id`;

const BYTES = 'select $10::bytea as content, null::text as staged_id';
const STAGED_BYTES = 'select null::bytea as content, s.id as staged_id from intake_staging s where s.id = $10 and s.account_id = $1 and s.mode = $2 and s.content is not null';

/**
 * One statement: lock the invoice, keep its live document if it has these bytes or was attached
 * by stronger evidence (`kept`: $11 is the new file's rank), otherwise
 * tombstone it (freeing its bytes), insert the new one and point the invoice at it. `gone` runs
 * before `ins` (ins reads it), so the unique index documents_live sees the old one tombstoned; a
 * document that a concurrent attach committed after this statement's snapshot makes the insert
 * fail on that index instead, and the caller runs it again with the invoice locked first.
 */
const attachSql = (bytes: string, followUp = '') => `
  with src as (${bytes}), inv as (
    select t.id, t.deleted_at from invoices t where t.id = $3 and t.account_id || '' = $1 and t.mode = $2 for update
  ), cur as (
    select ${META}, t.staged_id from documents t
    where t.invoice_id = $3 and t.account_id = $1 and t.mode = $2 and t.deleted_at is null and exists (select 1 from inv where inv.deleted_at is null)
  ), same as (
    select * from cur where cur.sha256 = $8
  ), kept as (
    select * from cur where not exists (select 1 from same) and ($11::int < ${REPLACING_RANK} or $11::int < ${rankOf('cur.matched_by')})
  ), gone as (
    update documents t set deleted_at = now(), content = null from cur
    where t.id = cur.id and not exists (select 1 from same) and not exists (select 1 from kept) returning t.id, t.staged_id
  ), freed as (
    ${FREE_STAGED('gone')}
  ), ins as (
    insert into documents as t (id, account_id, mode, invoice_id, filename, media_type, size, sha256, content, staged_id, source, matched_by, original, original_name)
    select $4, $1, $2, inv.id, $5, $6, $7, $8, src.content, src.staged_id, $9, $12, $13, $14 from inv, src
    where inv.deleted_at is null and not exists (select 1 from same) and not exists (select 1 from kept) and (select count(*) from gone) >= 0
    returning ${META}, t.staged_id
  ), upd as (
    update invoices t set document_id = ins.id, updated_at = now() from ins where t.id = ins.invoice_id returning t.id
  )${followUp}
  select (select count(*) from inv)::int as found, (select count(*) from inv where inv.deleted_at is not null)::int as invoice_deleted,
    (select count(*) from ins)::int as inserted, (select count(*) from kept)::int as kept, ${followUp ? '(select count(*) from followed)::int' : '0'} as followed, d.*
  from (select 1) one left join (select * from ins union all select * from same union all select * from kept) d on true`;
const ATTACH_BYTES = attachSql(BYTES);
const ATTACH_STAGED = attachSql(STAGED_BYTES);
/** attachSql with each follow-up (one constant string each), built once: for bytes, for staged bytes */
const withFollowUp = new Map<string, [string, string]>();
const attachSqlFor = (staged: boolean, ctes?: string) => {
  if (!ctes) return staged ? ATTACH_STAGED : ATTACH_BYTES;
  let built = withFollowUp.get(ctes);
  if (!built) withFollowUp.set(ctes, (built = [attachSql(BYTES, ctes), attachSql(STAGED_BYTES, ctes)]));
  return built[staged ? 1 : 0];
};

const rankOfNew = (by: MatchedBy | null) => EVIDENCE_RANK[by ?? 'manual'];

export class DocumentRepository {
  async find(q: Queryable, scope: Scope, id: string): Promise<Found<DocumentMeta>> {
    const w = scopeWhereId(scope, id);
    const r = (await q.query<DocumentRow>(`select ${META} from documents t where ${w.sql}`, w.params))[0];
    return r && { record: toMeta(r), deleted: r.deleted_at != null };
  }

  async findCurrentForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<DocumentMeta | undefined> {
    const w = scopeWhere(scope);
    const r = (await q.query<DocumentRow>(`select ${META} from documents t where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null`, [...w.params, invoiceId]))[0];
    return r && toMeta(r);
  }

  async content(q: Queryable, scope: Scope, id: string): Promise<Buffer | null> {
    const w = scopeWhereId(scope, id);
    const source = `select coalesce(t.content, s.content) as content from documents t left join intake_staging s on s.id = t.staged_id where ${w.sql} and t.deleted_at is null`;
    return (await readBytes(q, source, w.params)) ?? null;
  }

  async original(q: Queryable, scope: Scope, id: string): Promise<{ name: string; bytes: Buffer } | undefined> {
    const w = scopeWhereId(scope, id);
    const r = (await q.query<{ original: Uint8Array; original_name: string }>(`select t.original, t.original_name from documents t where ${w.sql} and t.deleted_at is null and t.original is not null`, w.params))[0];
    return r && { name: r.original_name, bytes: toBuffer(r.original)! };
  }

  /**
   * Makes `d` the invoice's document unless it already has these bytes (see attachSql); `followUp`
   * runs in the same statement (one round trip and one commit for both), `followed` counts its rows.
   */
  async attach(q: Queryable, scope: Scope, d: NewDocument, followUp?: AttachFollowUp): Promise<AttachOutcome & { followed: number }> {
    const staged = 'stagedIntakeId' in d.content;
    const content = 'stagedIntakeId' in d.content ? d.content.stagedIntakeId : d.content.bytes;
    const [r] = await q.query<AttachRow>(
      attachSqlFor(staged, followUp?.ctes),
      [scope.accountId, scope.mode, d.invoiceId, d.id, d.filename, d.mediaType, d.size, d.sha256, d.source, content, rankOfNew(d.matchedBy), d.matchedBy,
        d.original ? Buffer.from(d.original.bytes) : null, d.original?.name ?? null, ...(followUp?.params ?? [])],
      { prepare: true },
    );
    const followed = r.followed;
    if (!r.found) return { status: 'no-invoice', followed };
    if (r.invoice_deleted) return { status: 'invoice-deleted', followed };
    if (r.kept) return { status: 'kept', document: toMeta(r), followed };
    // the staged bytes were gone, so nothing was inserted
    if (!r.id) throw new Error(`The staged bytes of intake ${typeof content === 'string' ? content : '(bytes)'} are no longer available`);
    return { status: r.inserted ? 'attached' : 'unchanged', document: toMeta(r), followed };
  }

  /**
   * Locks the invoice for an attach that runs again after losing a race (attachSql locks it too):
   * a document's statements keep their invoice's pointer to it, so they lock that row themselves.
   */
  async lockInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<void> {
    const w = scopeWhereId(scope, invoiceId);
    await q.query(`select 1 from invoices t where ${w.sql} for update`, w.params);
  }

  /** Tombstones the invoice's live documents, frees their bytes and clears a live invoice's pointer to them. */
  async deleteForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<void> {
    const w = scopeWhere(scope);
    await q.query(
      `with gone as (update documents t set deleted_at = now(), content = null where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null returning t.staged_id),
         freed as (${FREE_STAGED('gone')})
       update invoices t set document_id = null, updated_at = now() where ${scopeWhereId(scope, invoiceId).sql} and t.deleted_at is null`,
      [...w.params, invoiceId],
    );
  }
}
