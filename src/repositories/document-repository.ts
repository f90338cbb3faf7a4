import type { Queryable } from '../db/database.ts';
import { toBuffer } from '../db/database.ts';
import type { DocumentMeta } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';
import type { Found } from './customer-repository.ts';
import { scopeWhere, scopeWhereId } from './scoped.ts';

const META = 't.id, t.invoice_id, t.filename, t.media_type, t.size, t.sha256, t.source, t.created_at, t.deleted_at';

const toMeta = (r: any): DocumentMeta => ({
  id: r.id, invoiceId: r.invoice_id, filename: r.filename, mediaType: r.media_type, size: r.size, sha256: r.sha256, source: r.source, createdAt: r.created_at,
});

export interface NewDocument {
  id: string;
  invoiceId: string;
  filename: string;
  mediaType: string;
  bytes: Buffer;
  sha256: string;
  source: string;
}

export const documentRepository = {
  async find(q: Queryable, scope: Scope, id: string): Promise<Found<DocumentMeta>> {
    const w = scopeWhereId(scope, id);
    const r = (await q.query(`select ${META} from documents t where ${w.sql}`, w.params))[0];
    return r && { record: toMeta(r), deleted: r.deleted_at != null };
  },

  async findCurrentForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<DocumentMeta | undefined> {
    const w = scopeWhere(scope);
    const r = (await q.query(`select ${META} from documents t where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null`, [...w.params, invoiceId]))[0];
    return r && toMeta(r);
  },

  async content(q: Queryable, scope: Scope, id: string): Promise<Buffer | null> {
    const w = scopeWhereId(scope, id);
    const r = (await q.query(`select t.content from documents t where ${w.sql} and t.deleted_at is null`, w.params))[0];
    return r ? toBuffer(r.content) : null;
  },

  async insert(q: Queryable, scope: Scope, d: NewDocument): Promise<DocumentMeta> {
    const rows = await q.query(
      `insert into documents as t (id, account_id, mode, invoice_id, filename, media_type, size, sha256, content, source)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning ${META}`,
      [d.id, scope.accountId, scope.mode, d.invoiceId, d.filename, d.mediaType, d.bytes.length, d.sha256, d.bytes, d.source],
    );
    return toMeta(rows[0]);
  },

  /** Tombstones the invoice's live documents and frees their bytes. */
  async deleteForInvoice(q: Queryable, scope: Scope, invoiceId: string): Promise<void> {
    const w = scopeWhere(scope);
    await q.query(`update documents t set deleted_at = now(), content = null where ${w.sql} and t.invoice_id = $3 and t.deleted_at is null`, [...w.params, invoiceId]);
  },
};
