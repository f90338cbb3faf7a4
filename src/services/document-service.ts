import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/database.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { DocumentMeta } from '../domain/models.ts';
import type { MatchedBy } from '../domain/intake.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';
import type { PdfChecker, PdfVerdict } from '../domain/pdf.ts';
import type { RenderedXmlInvoice } from '../domain/einvoice-document.ts';
import { looksLikeXml, openPdf } from '../domain/pdf-container.ts';
import type { Scope } from '../domain/scope.ts';
import type { AttachFollowUp, AttachOutcome } from '../repositories/document-repository.ts';
import type { EventOutbox, RecordEvent, SubjectLoader } from './event-outbox.ts';

export interface AttachRequest {
  invoiceId: string;
  filename: string;
  mediaType?: string;
  bytes: Buffer;
  /** api, ftp, mail or http: where the file came from */
  source: string;
  /** the bytes are staged already as this intake file, which has their sha256: the document shares them */
  staged?: { intakeId: string; sha256: string };
  /** the caller ran inspect() on these bytes already (intake, to read the e-invoice inside) */
  checked?: boolean;
  /** the evidence that found the invoice (intake); absent: the invoice was named explicitly (API) */
  matchedBy?: MatchedBy;
  /** the XML e-invoice the PDF was rendered from (kept beside it, downloadable) */
  original?: Original;
  /**
   * A change of the caller's in the attach's own statement (the intake record marked attached),
   * with the event that reports it when it changed rows; both events commit with the statement.
   */
  followUp?: FollowUp;
}

export interface FollowUp {
  statement: AttachFollowUp;
  event: string;
  subject: (q: Queryable) => SubjectLoader;
}

export interface Original {
  bytes: Uint8Array;
  /** the name the standard gives it (xrechnung.xml, factur-x.xml), as embedded in the PDF */
  name: string;
}

/** A received file as a document: the PDF it holds (opened and checked), or why it is none. */
export type InspectedPdf = (Extract<PdfVerdict, { ok: true }> & { bytes: Uint8Array; from?: IntakeReason; original?: Original }) | { ok: false; reason: IntakeReason };

export interface Attached {
  document: DocumentMeta;
  /** false when the invoice already had these exact bytes and nothing changed */
  changed: boolean;
  /** rows the request's followUp changed */
  followed?: number;
}

/** Attached, or the invoice's document was attached by stronger evidence and stays. */
export type AttachResult = Attached | { kept: DocumentMeta };

/** A concurrent writer committed a row that the unique index `index` allows only once. */
const isUniqueViolation = (e: unknown, index: string) => (e as { code?: string })?.code === '23505' && String((e as { constraint?: string }).constraint ?? (e as Error).message).includes(index);

/** Thrown when bytes are not an acceptable PDF; `reason` is for people, the message is the spec's. */
export class PdfContentError extends DomainError {
  constructor(readonly reason: IntakeReason) {
    super('invalid', 'Error in PDF file content', 'content');
  }
}

export class DocumentService {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<Repositories, 'documents'>,
    private readonly checkPdf: PdfChecker,
    private readonly outbox: EventOutbox,
    /** XML e-invoices rendered as PDFs that embed them (in a PDF check thread) */
    private readonly renderXml: (xml: Uint8Array) => Promise<RenderedXmlInvoice>,
    /** a PDF's text layer, '' for none (in a PDF check thread) */
    readonly readText: (pdf: Uint8Array) => Promise<string>,
  ) {}

  /**
   * What is stored is a PDF from its first byte: the one opening and check for every channel and
   * the API. An XML e-invoice becomes the PDF rendered from it, the XML kept as its original.
   */
  async inspect(bytes: Uint8Array): Promise<InspectedPdf> {
    if (looksLikeXml(bytes)) {
      const xml = await this.renderXml(bytes);
      if (!xml.ok) return xml;
      const from = intakeReason('from_einvoice_xml', { name: xml.xmlName });
      return { ok: true, pages: null, einvoices: [xml.reading], bytes: xml.pdf, from, original: { bytes, name: xml.xmlName } };
    }
    const opened = openPdf(bytes);
    if (!opened.ok) return opened;
    const verdict = await this.checkPdf(opened.bytes);
    return verdict.ok ? { ...verdict, bytes: opened.bytes, ...(opened.from ? { from: opened.from } : {}) } : verdict;
  }

  /**
   * The one path by which a document reaches an invoice (API, FTP, e-mail, HTTP import).
   * A different file replaces the invoice's document when its evidence is at least as strong as
   * what attached the current one (domain/match-decision.ts); the same bytes again change nothing.
   */
  attach(scope: Scope, req: AttachRequest & { matchedBy?: 'manual' }): Promise<Attached>;
  attach(scope: Scope, req: AttachRequest): Promise<AttachResult>;
  async attach(scope: Scope, req: AttachRequest): Promise<AttachResult> {
    let bytes = req.bytes;
    let original = req.original;
    if (!req.checked) {
      const pdf = await this.inspect(bytes);
      if (!pdf.ok) throw new PdfContentError(pdf.reason);
      // taken out of a container or rendered from XML: the document is other bytes than those received
      if (pdf.from) [bytes, original] = [Buffer.from(pdf.bytes.buffer, pdf.bytes.byteOffset, pdf.bytes.length), pdf.original];
    }
    const staged = bytes === req.bytes ? req.staged : undefined;
    const doc = {
      id: newId('doc'), invoiceId: req.invoiceId, filename: req.filename, mediaType: req.mediaType ?? 'application/pdf', source: req.source,
      size: bytes.length, sha256: staged?.sha256 ?? createHash('sha256').update(bytes).digest('hex'), matchedBy: req.matchedBy ?? null, original: original ?? null,
      content: staged ? { stagedIntakeId: staged.intakeId } : { bytes },
    };
    // document.attached is recorded with the attach, whatever path the file came by
    const attached = (outcome: AttachOutcome) => () => (outcome.status === 'attached' ? { resource: 'document' as const, document: outcome.document } : undefined);
    const { followUp } = req;
    const run = (q: Queryable) => this.repos.documents.attach(q, scope, doc, followUp?.statement);
    /** the statement and its events in one transaction */
    const inTransaction = (lock: boolean) => this.outbox.transaction(async (tx, record) => {
      if (lock) await this.repos.documents.lockInvoice(tx, scope, req.invoiceId);
      const result = await run(tx);
      await record(scope, 'document.attached', attached(result));
      if (followUp && result.followed > 0) await record(scope, followUp.event, followUp.subject(tx));
      return result;
    });
    let outcome;
    try {
      // nobody listens (as a rule): the one statement commits on its own
      const listened = (await this.outbox.wants(scope, 'document.attached')) || (followUp !== undefined && (await this.outbox.wants(scope, followUp.event)));
      outcome = listened ? await inTransaction(false) : await run(this.db);
    } catch (e) {
      if (!isUniqueViolation(e, 'documents_live')) throw e;
      // A concurrent attach to this invoice committed after the statement's snapshot. Locking the
      // invoice first gives the statement a snapshot taken after every earlier attach committed.
      outcome = await inTransaction(true);
    }
    if (outcome.status === 'no-invoice') throw DomainError.notFound('invoice', req.invoiceId, 'invoice');
    if (outcome.status === 'invoice-deleted') throw DomainError.gone('invoice', req.invoiceId, 'invoice');
    if (outcome.status === 'kept') return { kept: outcome.document };
    return { document: outcome.document, changed: outcome.status === 'attached', ...(followUp ? { followed: outcome.followed } : {}) };
  }

  /** A document by its own id, or the current document of an invoice by the invoice's id. */
  async get(scope: Scope, id: string): Promise<DocumentMeta> {
    const byId = await this.repos.documents.find(this.db, scope, id);
    if (byId) {
      if (byId.deleted) throw DomainError.gone('document', id);
      return byId.record;
    }
    const current = await this.repos.documents.findCurrentForInvoice(this.db, scope, id);
    if (!current) throw DomainError.notFound('document', id);
    return current;
  }

  async content(scope: Scope, id: string): Promise<{ meta: DocumentMeta; bytes: Buffer }> {
    const meta = await this.get(scope, id);
    const bytes = await this.repos.documents.content(this.db, scope, meta.id);
    if (!bytes) throw DomainError.gone('document', id);
    return { meta, bytes };
  }

  /** The XML e-invoice a document was rendered from, as received. */
  async original(scope: Scope, id: string): Promise<{ meta: DocumentMeta; name: string; bytes: Buffer }> {
    const meta = await this.get(scope, id);
    const original = await this.repos.documents.original(this.db, scope, meta.id);
    if (!original) throw new DomainError('not_found', `The document ${meta.id} was not rendered from an XML e-invoice: it has no XML original`, 'format');
    return { meta, ...original };
  }

  async delete(scope: Scope, id: string): Promise<void> {
    const meta = await this.get(scope, id);
    await this.outbox.transaction(async (tx, record) => {
      await record(scope, 'document.deleted', () => ({ resource: 'document', document: meta }));
      await this.repos.documents.deleteForInvoice(tx, scope, meta.invoiceId);
    });
  }

  /** The invoice's document goes with the invoice, in the invoice's delete transaction `tx`. */
  async removeForInvoice(tx: Queryable, record: RecordEvent, scope: Scope, invoiceId: string): Promise<void> {
    await record(scope, 'document.deleted', async () => {
      const document = await this.repos.documents.findCurrentForInvoice(tx, scope, invoiceId);
      return document && { resource: 'document', document };
    });
    await this.repos.documents.deleteForInvoice(tx, scope, invoiceId);
  }
}
