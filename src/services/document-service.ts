import type { Database, Queryable } from '../db/database.ts';
import type { UnitOfWork, UnitTransaction } from '../db/units.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { DocumentMeta } from '../domain/models.ts';
import type { MatchedBy } from '../domain/intake.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';
import type { PdfChecker, PdfVerdict } from '../domain/document-facts.ts';
import type { RenderedXmlInvoice } from '../formats/einvoice-document.ts';
import { looksLikeXml, openPdf } from '../formats/pdf-container.ts';
import type { Scope } from '../domain/scope.ts';
import type { AttachFollowUp, AttachOutcome } from '../repositories/document-repository.ts';
import type { EventOutbox, SubjectLoader } from './event-outbox.ts';
import type { DocumentStore } from '../storage/document-store.ts';

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
   * The caller's own change that goes with the attach (intake: the import record marked attached),
   * written by the caller's repository as part of the attach's own statement (it reads the document
   * the attach ended on there), with the event that reports it when it changed rows; both events
   * commit with the attach.
   */
  followUp?: FollowUp;
}

interface FollowUp {
  /** the change, as part of the attach's own statement (the caller's repository writes it) */
  part: AttachFollowUp;
  event: string;
  subject: (q: Queryable) => SubjectLoader;
}

/**
 * The owner of the staged bytes that documents made from intake's files share (intake): told, in
 * the transaction that tombstones such documents, whose bytes no document needs any more.
 */
export interface SharedBytes {
  release(q: Queryable, scope: Scope, stagedIds: string[]): Promise<void>;
}

interface DocumentServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'documents'>;
  /** where documents' bytes and XML originals are (rows hold their SHA-256) */
  store: Pick<DocumentStore, 'put' | 'get'>;
  checkPdf: PdfChecker;
  outbox: EventOutbox;
  units: UnitOfWork;
  /** XML e-invoices rendered as PDFs that embed them (in a PDF check thread) */
  renderXml: (xml: Uint8Array) => Promise<RenderedXmlInvoice>;
  /** a PDF's text layer, '' for none (in a PDF check thread) */
  readText: (pdf: Uint8Array) => Promise<string>;
  sharedBytes: SharedBytes;
}

interface Original {
  bytes: Uint8Array;
  /** the name the standard gives it (xrechnung.xml, factur-x.xml), as embedded in the PDF */
  name: string;
}

/** A received file as a document: the PDF it holds (opened and checked), or why it is none. */
export type InspectedPdf =
  | (Extract<PdfVerdict, { ok: true }> & { bytes: Uint8Array; from?: IntakeReason; original?: Original })
  | { ok: false; reason: IntakeReason };

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
const isUniqueViolation = (e: unknown, index: string) =>
  (e as { code?: string })?.code === '23505' && String((e as { constraint?: string }).constraint ?? (e as Error).message).includes(index);

/** Thrown when bytes are not an acceptable PDF; `reason` is for people, the message is the spec's. */
export class PdfContentError extends DomainError {
  constructor(readonly reason: IntakeReason) {
    super('invalid', 'Error in PDF file content', 'content');
  }
}

export class DocumentService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'documents'>;
  private readonly store: Pick<DocumentStore, 'put' | 'get'>;
  private readonly checkPdf: PdfChecker;
  private readonly outbox: EventOutbox;
  private readonly units: UnitOfWork;
  private readonly renderXml: (xml: Uint8Array) => Promise<RenderedXmlInvoice>;
  readonly readText: (pdf: Uint8Array) => Promise<string>;
  private readonly sharedBytes: SharedBytes;

  constructor(o: DocumentServiceOptions) {
    ({
      db: this.db,
      repos: this.repos,
      store: this.store,
      checkPdf: this.checkPdf,
      outbox: this.outbox,
      units: this.units,
      renderXml: this.renderXml,
      readText: this.readText,
      sharedBytes: this.sharedBytes,
    } = o);
  }

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
    // the bytes durable in the store before the row that points at them commits (held whole here: their limit was the caller's)
    const stored = staged ? undefined : await this.store.put(bytes, { maxBytes: bytes.length });
    const storedOriginal = original && {
      name: original.name,
      sha256: (await this.store.put(Buffer.from(original.bytes), { maxBytes: original.bytes.length })).sha256,
    };
    const doc = {
      id: newId('doc'),
      invoiceId: req.invoiceId,
      filename: req.filename,
      mediaType: req.mediaType ?? 'application/pdf',
      source: req.source,
      size: bytes.length,
      sha256: staged?.sha256 ?? stored!.sha256,
      matchedBy: req.matchedBy ?? null,
      original: storedOriginal ?? null,
      content: staged ? { stagedIntakeId: staged.intakeId } : { sha256: stored!.sha256 },
    };
    // document.attached is recorded with the attach, whatever path the file came by
    const attached = (outcome: AttachOutcome) => () =>
      outcome.status === 'attached' ? { resource: 'document' as const, document: outcome.document } : undefined;
    const { followUp } = req;
    /**
     * The attach with the caller's follow-up in its statement, the freeing of the bytes its replaced
     * document shared, each by its table's own repository, and their events: one transaction.
     */
    const inTransaction = (lock: boolean) =>
      this.units.transaction(async (tx) => {
        if (lock) await this.repos.documents.lockInvoice(tx, scope, req.invoiceId);
        const result = await this.repos.documents.attach(tx, scope, doc, { follow: followUp?.part });
        if (result.released.length) await this.sharedBytes.release(tx, scope, result.released);
        await this.outbox.record(tx, scope, 'document.attached', attached(result));
        if (followUp && result.followed > 0) await this.outbox.record(tx, scope, followUp.event, followUp.subject(tx));
        return result;
      });
    let outcome;
    try {
      // nobody listens (as a rule): the one statement, with the follow-up's part in it, commits on its own,
      // unless the document it replaces shares an import's bytes (intake frees them in the attach's transaction)
      const alone = !(followUp && (await this.outbox.wants(scope, followUp.event))) && !(await this.outbox.wants(scope, 'document.attached'));
      const first = alone ? await this.repos.documents.attach(this.db, scope, doc, { alone, follow: followUp?.part }) : undefined;
      outcome = first && first.status !== 'replaces-shared' ? first : await inTransaction(false);
    } catch (e) {
      if (!isUniqueViolation(e, 'documents_live')) throw e;
      // A concurrent attach to this invoice committed after the statement's snapshot. Locking the
      // invoice first gives the statement a snapshot taken after every earlier attach committed.
      outcome = await inTransaction(true);
    }
    if (outcome.status === 'no-invoice') throw DomainError.notFound('invoice', req.invoiceId, 'invoice');
    if (outcome.status === 'invoice-deleted') throw DomainError.gone('invoice', req.invoiceId, 'invoice');
    if (outcome.status === 'kept') return { kept: outcome.document };
    if (outcome.status === 'replaces-shared') throw new Error('an attach in a transaction is never refused for shared bytes');
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
    const sha256 = await this.repos.documents.content(this.db, scope, meta.id);
    if (!sha256) throw DomainError.gone('document', id);
    return { meta, bytes: await this.store.get(sha256) };
  }

  /** The XML e-invoice a document was rendered from, as received. */
  async original(scope: Scope, id: string): Promise<{ meta: DocumentMeta; name: string; bytes: Buffer }> {
    const meta = await this.get(scope, id);
    const original = await this.repos.documents.original(this.db, scope, meta.id);
    if (!original) throw new DomainError('not_found', `The document ${meta.id} was not rendered from an XML e-invoice: it has no XML original`, 'format');
    return { meta, name: original.name, bytes: await this.store.get(original.sha256) };
  }

  async delete(scope: Scope, id: string): Promise<void> {
    const meta = await this.get(scope, id);
    await this.units.transaction(async (tx) => {
      await this.outbox.record(tx, scope, 'document.deleted', () => ({ resource: 'document', document: meta }));
      await this.tombstone(tx, scope, meta.invoiceId);
    });
  }

  /** The invoice's document goes with the invoice, in the invoice's delete transaction `tx`. */
  async removeForInvoice(tx: UnitTransaction, scope: Scope, invoiceId: string): Promise<void> {
    await this.outbox.record(tx, scope, 'document.deleted', async () => {
      const document = await this.repos.documents.findCurrentForInvoice(tx, scope, invoiceId);
      return document && { resource: 'document', document };
    });
    await this.tombstone(tx, scope, invoiceId);
  }

  /** The invoice's live documents tombstoned, and the staged bytes they shared freed by their owner, in `tx`. */
  private async tombstone(tx: Queryable, scope: Scope, invoiceId: string): Promise<void> {
    const released = await this.repos.documents.deleteForInvoice(tx, scope, invoiceId);
    if (released.length) await this.sharedBytes.release(tx, scope, released);
  }
}
