import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { ApiError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { DocumentMeta } from '../domain/models.ts';
import type { PdfChecker } from '../domain/pdf.ts';
import type { Scope } from '../domain/scope.ts';
import { documentRepository as documents } from '../repositories/document-repository.ts';
import { invoiceRepository as invoices } from '../repositories/invoice-repository.ts';

export interface AttachRequest {
  invoiceId: string;
  filename: string;
  mediaType?: string;
  bytes: Buffer;
  /** api, ftp, mail or http: where the file came from */
  source: string;
}

export interface AttachResult {
  document: DocumentMeta;
  /** false when the invoice already had these exact bytes and nothing changed */
  changed: boolean;
}

/** Thrown when bytes are not an acceptable PDF; `reason` is for people, the message is the spec's. */
export class PdfContentError extends ApiError {
  constructor(readonly reason: string) {
    super(400, 'Error in PDF file content', 'content');
  }
}

export class DocumentService {
  constructor(
    private readonly db: Database,
    private readonly checkPdf: PdfChecker,
  ) {}

  /**
   * The one path by which a document reaches an invoice (API, FTP, e-mail, HTTP import).
   * A different file replaces the invoice's document; the same bytes again change nothing.
   */
  async attach(scope: Scope, req: AttachRequest): Promise<AttachResult> {
    const verdict = await this.checkPdf(req.bytes);
    if (!verdict.ok) throw new PdfContentError(verdict.reason);
    const sha256 = createHash('sha256').update(req.bytes).digest('hex');
    return this.db.transaction(async (tx) => {
      const found = await invoices.find(tx, scope, req.invoiceId, true);
      if (!found) throw new ApiError(404, `No invoice exists with id ${req.invoiceId}.`, 'invoice');
      if (found.deleted) throw new ApiError(410, `The invoice with id ${req.invoiceId} was deleted.`, 'invoice');
      const current = await documents.findCurrentForInvoice(tx, scope, req.invoiceId);
      if (current && current.sha256 === sha256) return { document: current, changed: false };
      await documents.deleteForInvoice(tx, scope, req.invoiceId);
      const document = await documents.insert(tx, scope, {
        id: newId('doc'), invoiceId: req.invoiceId, filename: req.filename, mediaType: req.mediaType ?? 'application/pdf', bytes: req.bytes, sha256, source: req.source,
      });
      await invoices.update(tx, scope, req.invoiceId, { documentId: document.id });
      return { document, changed: true };
    });
  }

  /** A document by its own id, or the current document of an invoice by the invoice's id. */
  async get(scope: Scope, id: string): Promise<DocumentMeta> {
    const byId = await documents.find(this.db, scope, id);
    if (byId) {
      if (byId.deleted) throw ApiError.gone('document', id);
      return byId.record;
    }
    const current = await documents.findCurrentForInvoice(this.db, scope, id);
    if (!current) throw ApiError.notFound('document', id);
    return current;
  }

  async content(scope: Scope, id: string): Promise<{ meta: DocumentMeta; bytes: Buffer }> {
    const meta = await this.get(scope, id);
    const bytes = await documents.content(this.db, scope, meta.id);
    if (!bytes) throw ApiError.gone('document', id);
    return { meta, bytes };
  }

  async delete(scope: Scope, id: string): Promise<void> {
    const meta = await this.get(scope, id);
    await this.db.transaction(async (tx) => {
      await documents.deleteForInvoice(tx, scope, meta.invoiceId);
      await invoices.update(tx, scope, meta.invoiceId, { documentId: null });
    });
  }
}
