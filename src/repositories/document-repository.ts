import type { Queryable } from '../db/database.ts';
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

/** What attachSql returns: its counts, the documents it tombstoned, and the document it ended on (every column null when there is none). */
interface AttachRow extends DocumentRow {
  found: number;
  invoice_deleted: number;
  inserted: number;
  kept: number;
  /** 1 when run `alone` and the document it would replace shares an import's staged bytes (nothing changed) */
  shared: number;
  /** the intake file whose staged bytes the document it ended on shares */
  staged_id: string | null;
  replaced: string[];
  released: string[];
  /** the rows a follow-up in the statement changed */
  followed: number;
}

const toMeta = (r: DocumentRow): DocumentMeta => ({
  id: r.id,
  invoiceId: r.invoice_id,
  filename: r.filename,
  mediaType: r.media_type,
  size: r.size,
  sha256: r.sha256,
  source: r.source,
  createdAt: r.created_at,
  matchedBy: r.matched_by ?? null,
  originalName: r.original_name ?? null,
});

/** A document's evidence rank in SQL (domain/match-decision.ts): documents sent by the API (null) rank with a person's. */
const rankOf = (col: string) =>
  `case ${col} ${Object.entries(EVIDENCE_RANK)
    .map(([by, rank]) => `when '${by}' then ${rank}`)
    .join(' ')} else ${EVIDENCE_RANK.manual} end`;

export interface NewDocument extends Omit<DocumentMeta, 'createdAt'> {
  /** the XML e-invoice it was rendered from: its object in the document store */
  original: { sha256: string; name: string } | null;
  /** the bytes' object in the document store (put before), or the intake file whose staged object they are (shared, not copied) */
  content: { sha256: string } | { stagedIntakeId: string };
}

/** What an attach did besides its outcome: the documents it replaced (tombstoned), and the intake files whose staged bytes those shared. */
interface AttachEffects {
  /** rows the follow-up changed (0 without one) */
  followed: number;
  replaced: string[];
  /** the owner of those bytes (intake) frees them in the same transaction (services/document-service.ts, SharedBytes) */
  released: string[];
}

export type AttachOutcome =
  | { status: 'no-invoice' }
  | { status: 'invoice-deleted' }
  | { status: 'unchanged' | 'attached'; document: DocumentMeta /** the intake file whose staged bytes the document shares */; sharesStagedOf: string | null }
  /** the live document was attached by stronger evidence: it stays */
  | { status: 'kept'; document: DocumentMeta }
  /** run `alone`, it would replace a document that shares an import's staged bytes: nothing changed, run it in a transaction */
  | { status: 'replaces-shared' };

const BYTES = 'select $10::text as content_sha256, null::text as staged_id';
const STAGED_BYTES =
  'select s.content_sha256, s.id as staged_id from intake_staging s where s.id = $10 and s.account_id = $1 and s.mode = $2 and s.content_sha256 is not null';

/**
 * One statement: lock the invoice, keep its live document if it has these bytes or was attached
 * by stronger evidence (`kept`: $11 is the new file's rank), otherwise
 * tombstone it, insert the new one and point the invoice at it. It writes documents and the
 * invoice's pointer, nothing else: the staged bytes a tombstoned document shared are returned
 * (`released`) for intake to free in the same transaction. `gone` runs
 * before `ins` (ins reads it), so the unique index documents_live sees the old one tombstoned; a
 * document that a concurrent attach committed after this statement's snapshot makes the insert
 * fail on that index instead, and the caller runs it again with the invoice locked first.
 */
const attachSql = (bytes: string, follow?: { ctes: string; followed: string }) => `
  with src as (${bytes}), inv as (
    select t.id, t.deleted_at from invoices t where t.id = $3 and t.account_id || '' = $1 and t.mode = $2 for update
  ), cur as (
    select ${META}, t.staged_id from documents t
    where t.invoice_id = $3 and t.account_id = $1 and t.mode = $2 and t.deleted_at is null and exists (select 1 from inv where inv.deleted_at is null)
  ), same as (
    select * from cur where cur.sha256 = $8
  ), kept as (
    select * from cur where not exists (select 1 from same) and ($11::int < ${REPLACING_RANK} or $11::int < ${rankOf('cur.matched_by')})
  ), shared as (
    select 1 from cur where $15::boolean and cur.staged_id is not null and not exists (select 1 from same) and not exists (select 1 from kept)
  ), gone as (
    update documents t set deleted_at = now(), content_sha256 = null, original_sha256 = null from cur
    where t.id = cur.id and not exists (select 1 from same) and not exists (select 1 from kept) and not exists (select 1 from shared) returning t.id, t.staged_id
  ), ins as (
    insert into documents as t (id, account_id, mode, invoice_id, filename, media_type, size, sha256, content_sha256, staged_id, source, matched_by, original_sha256, original_name)
    select $4, $1, $2, inv.id, $5, $6, $7, $8, src.content_sha256, src.staged_id, $9, $12, $13, $14 from inv, src
    where inv.deleted_at is null and not exists (select 1 from same) and not exists (select 1 from kept) and not exists (select 1 from shared) and (select count(*) from gone) >= 0
    returning ${META}, t.staged_id
  ), upd as (
    update invoices t set document_id = ins.id, updated_at = now() from ins where t.id = ins.invoice_id returning t.id
  )${
    follow
      ? `, ended as (
    select e.id, e.invoice_id, e.staged_id, exists (select 1 from ins) as changed from (select id, invoice_id, staged_id from ins union all select id, invoice_id, staged_id from same) e
  ), ${follow.ctes}`
      : ''
  }
  select (select count(*) from inv)::int as found, (select count(*) from inv where inv.deleted_at is not null)::int as invoice_deleted,
    (select count(*) from ins)::int as inserted, (select count(*) from kept)::int as kept, (select count(*) from shared)::int as shared,
    array(select id from gone) as replaced, array(select staged_id from gone where staged_id is not null) as released,
    ${follow ? follow.followed : '0'}::int as followed, d.*
  from (select 1) one left join (select * from ins union all select * from same union all select * from kept) d on true`;
const ATTACH_BYTES = attachSql(BYTES);
const ATTACH_STAGED = attachSql(STAGED_BYTES);
/** The attach's own parameters ($1-$15): a follow-up's are numbered after them. */
const ATTACH_PARAMS = 15;

/**
 * A caller's own change that goes with the attach, as part of the attach's one statement (one
 * round trip where a transaction takes four): data-modifying CTEs, written by the caller's
 * repository, that may read `ended (id, invoice_id, staged_id, changed)`, the document the attach
 * ended on (none when it ended on none: kept, refused, no invoice), and `gone (id, staged_id)`,
 * the documents it tombstoned; `followed` is an expression of the rows it changed. `param` binds
 * a value and gives its placeholder.
 */
export interface AttachFollowUp {
  sql(param: (value: unknown) => string): { ctes: string; followed: string };
}

const rankOfNew = (by: MatchedBy | null) => EVIDENCE_RANK[by ?? 'manual'];

export class DocumentRepository {
  async find(q: Queryable, scope: Scope, id: string): Promise<Found<DocumentMeta>> {
    const w = scopeWhereId(scope, id);
    const r = (await q.query<DocumentRow>(`select ${META} from documents t where ${w.sql}`, w.params))[0];
    return r && { record: toMeta(r), deleted: r.deleted_at != null };
  }

  async findCurrentForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<DocumentMeta | undefined> {
    const w = scopeWhere(scope);
    const r = (
      await q.query<DocumentRow>(`select ${META} from documents t where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null`, [...w.params, invoiceId])
    )[0];
    return r && toMeta(r);
  }

  /** The object of a live document's bytes in the document store; null when there is none. */
  async content(q: Queryable, scope: Scope, id: string): Promise<string | null> {
    const w = scopeWhereId(scope, id);
    const r = (
      await q.query<{ content_sha256: string | null }>(`select t.content_sha256 from documents t where ${w.sql} and t.deleted_at is null`, w.params)
    )[0];
    return r?.content_sha256 ?? null;
  }

  /** The XML original's name and object in the document store. */
  async original(q: Queryable, scope: Scope, id: string): Promise<{ name: string; sha256: string } | undefined> {
    const w = scopeWhereId(scope, id);
    const r = (
      await q.query<{ original_sha256: string; original_name: string }>(
        `select t.original_sha256, t.original_name from documents t where ${w.sql} and t.deleted_at is null and t.original_sha256 is not null`,
        w.params,
      )
    )[0];
    return r && { name: r.original_name, sha256: r.original_sha256 };
  }

  /**
   * Makes `d` the invoice's document unless it already has these bytes (see attachSql). `alone`:
   * the statement commits on its own, so it changes nothing where the document it would replace
   * shares an import's staged bytes, which their owner must free in the same transaction.
   */
  async attach(
    q: Queryable,
    scope: Scope,
    d: NewDocument,
    { alone = false, follow }: { alone?: boolean; follow?: AttachFollowUp } = {},
  ): Promise<AttachOutcome & AttachEffects> {
    const staged = 'stagedIntakeId' in d.content;
    const content = 'stagedIntakeId' in d.content ? d.content.stagedIntakeId : d.content.sha256;
    const more: unknown[] = [];
    const part = follow?.sql((value) => `$${ATTACH_PARAMS + more.push(value)}`);
    const [r] = await q.query<AttachRow>(
      part ? attachSql(staged ? STAGED_BYTES : BYTES, part) : staged ? ATTACH_STAGED : ATTACH_BYTES,
      [
        scope.accountId,
        scope.mode,
        d.invoiceId,
        d.id,
        d.filename,
        d.mediaType,
        d.size,
        d.sha256,
        d.source,
        content,
        rankOfNew(d.matchedBy),
        d.matchedBy,
        d.original?.sha256 ?? null,
        d.original?.name ?? null,
        alone,
        ...more,
      ],
      { prepare: true },
    );
    const effects = { replaced: r.replaced, released: r.released, followed: r.followed };
    if (!r.found) return { status: 'no-invoice', ...effects };
    if (r.invoice_deleted) return { status: 'invoice-deleted', ...effects };
    if (r.kept) return { status: 'kept', document: toMeta(r), ...effects };
    if (r.shared) return { status: 'replaces-shared', ...effects };
    // the staged bytes were gone, so nothing was inserted
    if (!r.id) throw new Error(`The staged bytes of intake ${content} are no longer available`);
    return { status: r.inserted ? 'attached' : 'unchanged', document: toMeta(r), sharesStagedOf: r.staged_id, ...effects };
  }

  /**
   * Locks the invoice for an attach that runs again after losing a race (attachSql locks it too):
   * a document's statements keep their invoice's pointer to it, so they lock that row themselves.
   */
  async lockInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<void> {
    const w = scopeWhereId(scope, invoiceId);
    await q.query(`select 1 from invoices t where ${w.sql} for update`, w.params);
  }

  /**
   * Tombstones the invoice's live documents and clears a live invoice's pointer to them; returns
   * the intake files whose staged bytes they shared (freed by their owner, intake, in the same transaction).
   */
  async deleteForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<string[]> {
    const w = scopeWhere(scope);
    const [r] = await q.query<{ released: string[] }>(
      `with gone as (update documents t set deleted_at = now(), content_sha256 = null, original_sha256 = null where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null returning t.staged_id),
         upd as (update invoices t set document_id = null, updated_at = now() where ${scopeWhereId(scope, invoiceId).sql} and t.deleted_at is null)
       select array(select staged_id from gone where staged_id is not null) as released`,
      [...w.params, invoiceId],
    );
    return r.released;
  }
}
