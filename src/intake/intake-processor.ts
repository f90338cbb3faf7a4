// The worker's decision for one staged file: open the PDF (a container unwrapped, junk before its
// header dropped) and check it, gather the evidence (its name, its e-invoice, the e-mail's subject,
// the invoices they name, inside the file's account and mode), weigh it (domain/match-decision.ts)
// and attach through DocumentService, the code path of POST /v2/documents, which never replaces a
// document with one found by weaker evidence. Idempotent: a job that runs again attaches nothing twice.
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { IntakeStatus } from '../domain/intake.ts';
import { intakeReason, withNotes, type IntakeReason } from '../domain/intake-reasons.ts';
import { decideMatch, isReplySubject, type MatchDecision, type MatchEvidence } from '../domain/match-decision.ts';
import { deviceName, evidenceCandidates, looksLikeInvoiceNumber } from '../domain/match-names.ts';
import { labelledNumbers } from '../domain/pdf-text-evidence.ts';
import type { Scope } from '../domain/scope.ts';
import { PdfContentError, type DocumentService, type InspectedPdf } from '../services/document-service.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import type { InvoiceService } from '../services/invoice-service.ts';
import { changeIntakeStatus } from './status-change.ts';
import { normaliseFileName } from './file-name.ts';
import type { IntakeJobRef } from './intake-jobs.ts';
import type { StagedImport } from './intake-repository.ts';
import type { AttachedTexts } from './document-link-repository.ts';
import type { IntakeRepositories } from './intake-repositories.ts';
import type { StagedBytesCache } from './staged-bytes-cache.ts';

export type ProcessOutcome =
  | { status: 'attached'; invoiceId: string; documentId: string; changed: boolean }
  | { status: 'failed'; reason: string }
  | { status: 'skipped'; why: string };

/** No invoice yet: run again later, but not after `until` (the end of the match window). */
export class WaitingForInvoice extends Error {
  constructor(
    /** the reason the file gets if it is still waiting when its tries run out */
    readonly finalReason: IntakeReason,
    readonly until: number,
  ) {
    super(`Waiting: ${finalReason.text}`);
  }
}

export interface Attempt {
  /** attempts finished before this one */
  made: number;
  /** attempts allowed in all */
  max: number;
}

const INVOICE_ID_PREFIX = 'inv_';

/** The match window, and which kinds of evidence beyond the whole name count (config: INTAKE_MATCH_*). */
export interface MatchRules {
  windowMs: number;
  einvoice: boolean;
  subject: boolean;
  nameToken: boolean;
  pdfText: boolean;
}

interface IntakeProcessorOptions {
  db: Database;
  repos: Pick<IntakeRepositories, 'intake' | 'documentLinks'>;
  outbox: EventOutbox;
  documents: DocumentService;
  invoices: Pick<InvoiceService, 'find' | 'findByNumber' | 'findNumbers'>;
  rules: MatchRules;
  events?: DomainEvents;
  /** bytes received by this very process, if any: saves reading them back */
  cache?: StagedBytesCache;
  now?: () => number;
}

export class IntakeProcessor {
  private readonly db: Database;
  private readonly repos: Pick<IntakeRepositories, 'intake' | 'documentLinks'>;
  private readonly outbox: EventOutbox;
  private readonly documents: DocumentService;
  private readonly invoices: Pick<InvoiceService, 'find' | 'findByNumber' | 'findNumbers'>;
  private readonly rules: MatchRules;
  private readonly events: DomainEvents | undefined;
  private readonly cache: StagedBytesCache | undefined;
  private readonly now: () => number;

  constructor(o: IntakeProcessorOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.outbox = o.outbox;
    this.documents = o.documents;
    this.invoices = o.invoices;
    this.rules = o.rules;
    this.events = o.events;
    this.cache = o.cache;
    this.now = o.now ?? Date.now;
  }

  async process(ref: IntakeJobRef, attempt: Attempt): Promise<ProcessOutcome> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    const cached = this.cache?.take(ref.intakeId);
    const staged = await this.repos.intake.loadStaged(this.db, scope, ref.intakeId, !cached, true);
    if (!staged) return { status: 'skipped', why: 'no import record (purged)' };
    const { record } = staged;
    if (record.status === 'attached') return { status: 'skipped', why: 'already attached' };
    const emit = (status: IntakeStatus, reason: IntakeReason | null) =>
      this.events?.emit('intakeStatus', {
        scope,
        intakeId: record.id,
        channel: record.channel,
        status,
        reason: reason?.text ?? null,
        receivedAt: record.receivedAt,
      });
    const fail = async (reason: IntakeReason, invoiceId: string | null = null): Promise<ProcessOutcome> => {
      // attached meanwhile (another run): nothing changed, nothing to announce
      if (
        await changeIntakeStatus(this.outbox, this.repos.intake, scope, record.id, 'failed', (q) =>
          this.repos.intake.markFailed(q, scope, record.id, reason, invoiceId),
        )
      )
        emit('failed', reason);
      return { status: 'failed', reason: reason.text };
    };

    const name = normaliseFileName(record.filename);
    if (!name.ok) return fail(name.reason);
    if (!staged.hasContent) return fail(intakeReason('staged_missing'));
    // checked before matching, so that a broken file fails at once instead of waiting for its invoice
    const pdf = await this.documents.inspect(cached ?? staged.content!);
    if (!pdf.ok) return fail(pdf.reason);

    // the number rule was answered with the record when its stored match name is this one
    const known = staged.matchName === name.matchName ? staged.invoiceByNumber : undefined;
    const text: { read?: string } = {};
    let decision = await this.decide(scope, staged, name.matchName, pdf, text, known);
    if (decision.kind === 'wait') {
      const until = record.receivedAt.getTime() + this.rules.windowMs;
      const { awaits } = decision;
      // a scanner's name is not waited for: the reason says what the PDF must name instead
      const [stopped, waits] = decision.device
        ? [
            intakeReason('no_invoice_device', { name: awaits.name }),
            intakeReason('waiting_device', { name: awaits.name, until: new Date(until).toISOString() }),
          ]
        : [intakeReason('no_invoice', { awaits }), intakeReason('waiting', { awaits, until: new Date(until).toISOString() })];
      const finalReason = withNotes(stopped, decision.notes);
      if (this.now() >= until || attempt.made + 1 >= attempt.max) return fail(finalReason);
      const waiting = withNotes(waits, decision.notes);
      // import.waiting once, when it starts waiting; later tries only update the reason
      if (record.status === 'waiting') await this.repos.intake.markWaiting(this.db, scope, record.id, waiting);
      else {
        await changeIntakeStatus(this.outbox, this.repos.intake, scope, record.id, 'waiting', (q) =>
          this.repos.intake.markWaiting(q, scope, record.id, waiting),
        );
        emit('waiting', waiting);
      }
      // An invoice created while we looked wakes only files already marked waiting: look once more.
      decision = await this.decide(scope, staged, name.matchName, pdf, text);
      if (decision.kind === 'wait') throw new WaitingForInvoice(finalReason, until);
    }
    if (decision.kind === 'refuse') return fail(decision.reason);

    const { invoiceId, by } = decision;
    // what the record says once attached: the invoice may have had these very bytes already
    const replaced = intakeReason('document_replaced', { filename: name.documentName, number: decision.invoiceNumber, by });
    const texts = { ...attachedTexts(decision, pdf.from), replaced };
    let attached;
    try {
      attached = await this.documents.attach(scope, {
        invoiceId,
        filename: name.documentName,
        bytes: asBuffer(pdf.bytes),
        source: record.channel,
        matchedBy: by,
        checked: true,
        original: pdf.original,
        // the document shares the staged bytes when they are the PDF itself
        ...(pdf.from ? {} : { staged: { intakeId: record.id, sha256: record.sha256 } }),
        // the record is marked attached (with its history line) by intake's own statement in the
        // attach's transaction: both commit together; import.attached commits with them
        followUp: {
          part: this.repos.documentLinks.markAttached(scope, record.id, by, texts),
          event: 'import.attached',
          subject: (q) => async () => {
            const found = (await this.repos.intake.find(q, scope, record.id))?.record;
            return found && { resource: 'import', record: found };
          },
        },
      });
    } catch (e) {
      if (e instanceof PdfContentError) return fail(e.reason, invoiceId);
      if (e instanceof DomainError && (e.kind === 'not_found' || e.kind === 'gone'))
        return fail(intakeReason('invoice_deleted', { invoice: invoiceId }), invoiceId);
      throw e; // database trouble and the like: transient, the job retries
    }
    if ('kept' in attached) {
      const current = attached.kept;
      const kept = { number: decision.invoiceNumber, filename: current.filename, keptBy: current.matchedBy ?? 'manual', by } as const;
      return fail(intakeReason('document_kept', kept), invoiceId);
    }
    const { document, changed } = attached;
    emit('attached', changed ? texts.note.changed : texts.note.unchanged);
    return { status: 'attached', invoiceId, documentId: document.id, changed };
  }

  /** The job's retries are used up on a transient error: the record must still say why it stopped. */
  async giveUp(ref: IntakeJobRef, reason: IntakeReason): Promise<void> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    if (
      !(await changeIntakeStatus(this.outbox, this.repos.intake, scope, ref.intakeId, 'failed', (q) =>
        this.repos.intake.markFailed(q, scope, ref.intakeId, reason),
      ))
    )
      return;
    const record = (await this.repos.intake.find(this.db, scope, ref.intakeId))?.record;
    if (record) this.events?.emit('intakeStatus', { scope, intakeId: record.id, channel: record.channel, status: 'failed', reason: reason.text });
  }

  /**
   * Gathers the evidence (one query for every candidate number) and weighs it; when nothing the
   * file carries names any invoice, its text is read too (once per run: `text` keeps it).
   */
  private async decide(
    scope: Scope,
    staged: StagedImport,
    name: string,
    pdf: Extract<InspectedPdf, { ok: true }>,
    text: { read?: string },
    knownByNumber?: string | null,
  ): Promise<MatchDecision> {
    const einvoices = this.rules.einvoice ? pdf.einvoices : [];
    const byName = await this.byName(scope, name, knownByNumber);
    const nameTokens = byName || !this.rules.nameToken ? [] : evidenceCandidates(name);
    const subject = this.rules.subject && staged.subject ? this.subjectEvidence(staged.subject, staged.messageFiles) : undefined;
    const numbers = [
      ...einvoices.flatMap((r) => (r.kind === 'invoice' ? [r.number] : [])),
      ...nameTokens.map((c) => c.text),
      ...(subject?.tokens.map((c) => c.text) ?? []),
    ];
    const found = await this.invoices.findNumbers(scope, numbers);
    const evidence: MatchEvidence = {
      name,
      byName,
      nameIsNumber: looksLikeInvoiceNumber(name),
      nameIsDevice: deviceName(name) && !(einvoices.length < pdf.einvoices.length),
      einvoices,
      nameTokens,
      subject,
      found,
    };
    const decision = decideMatch(evidence);
    if (decision.kind !== 'wait' || !decision.open || !this.rules.pdfText || pdf.original) return decision;
    text.read ??= await this.documents.readText(pdf.bytes);
    const labelled = labelledNumbers(text.read);
    const byText = await this.invoices.findNumbers(
      scope,
      labelled.map((c) => c.text),
    );
    return decideMatch({ ...evidence, found: [...found, ...byText], pdfText: { text: text.read, numbers: labelled } });
  }

  private subjectEvidence(text: string, messageFiles: number | null): MatchEvidence['subject'] {
    // the subject speaks of the message: with several files it cannot say which one is the invoice
    return { text, tokens: evidenceCandidates(text), reply: isReplySubject(text), manyFiles: messageFiles && messageFiles > 1 ? messageFiles : undefined };
  }

  /** The spec's rules on the whole name: invoice id first, then invoice number (exact, then case-insensitive when unambiguous). */
  private async byName(scope: Scope, name: string, knownByNumber?: string | null): Promise<MatchEvidence['byName']> {
    // only names with the id prefix can be ids: bulk uploads named by number skip that query
    const byId = name.startsWith(INVOICE_ID_PREFIX) ? await this.invoices.find(scope, name) : undefined;
    if (byId && !byId.deleted) return { invoiceId: byId.record.id, invoiceNumber: byId.record.invoiceNumber, by: 'invoice_id' };
    const byNumber = knownByNumber === undefined ? await this.invoices.findByNumber(scope, name) : undefined;
    const id = knownByNumber === undefined ? byNumber?.id : knownByNumber;
    if (id) return { invoiceId: id, invoiceNumber: byNumber?.invoiceNumber ?? name, by: 'invoice_number' };
    return byId ? { deletedId: byId.record.id } : undefined;
  }
}

/** A Buffer over the same memory (Buffer.from(Uint8Array) would copy the 100 KB-5 MB file). */
const asBuffer = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length));

/** The attached record's reason and history line, for an attach that changed the document and for one that found these bytes there already. */
function attachedTexts(decision: Extract<MatchDecision, { kind: 'attach' }>, from: IntakeReason | undefined): Omit<AttachedTexts, 'replaced'> {
  const texts = (changed: boolean) => {
    const notes = [...(changed ? [] : [intakeReason('same_file')]), ...notesOf(decision, from)];
    // the history line names the evidence used, whatever else it says
    return {
      note: notes.length ? withNotes(notes[0], notes.slice(1)) : null,
      history: withNotes(intakeReason('matched', { by: decision.by, number: decision.invoiceNumber }), notes),
    };
  };
  const [changed, unchanged] = [texts(true), texts(false)];
  return { note: { changed: changed.note, unchanged: unchanged.note }, history: { changed: changed.history, unchanged: unchanged.history } };
}

/** What an attached record says besides its invoice: the evidence that gave way, where its PDF came from. */
function notesOf(decision: Extract<MatchDecision, { kind: 'attach' }>, from: IntakeReason | undefined): IntakeReason[] {
  return [...(decision.overruled ? [decision.overruled] : []), ...(from ? [from] : [])];
}
