// The worker's decision for one staged file: name -> invoice (id first, then number, inside the
// file's account and mode) -> PDF check -> the fallbacks (its e-invoice, the e-mail subject, a
// number inside the name) -> attach through DocumentService, the code path of POST /v2/documents.
// Idempotent: a job that runs again (crash, reconciler) attaches nothing twice.
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { PdfChecker } from '../domain/pdf.ts';
import type { IntakeStatus, MatchedBy } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import { invoiceRepository as invoices } from '../repositories/invoice-repository.ts';
import { PdfContentError, type DocumentService } from '../services/document-service.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import { changeIntakeStatus } from './status-change.ts';
import { noInvoiceReason, normaliseFileName } from './file-name.ts';
import type { IntakeJobRef } from './intake-jobs.ts';
import { intakeRepository as repo } from './intake-repository.ts';
import type { StagedBytesCache } from './staged-bytes-cache.ts';
import { ambiguityReason, resolve, tokenCandidates, type Candidate } from './match-tokens.ts';

export type ProcessOutcome =
  | { status: 'attached'; invoiceId: string; documentId: string; changed: boolean }
  | { status: 'failed'; reason: string }
  | { status: 'skipped'; why: string };

/** No invoice yet: run again later, but not after `until` (the end of the match window). */
export class WaitingForInvoice extends Error {
  constructor(
    readonly matchName: string,
    readonly until: number,
  ) {
    super(`Waiting for an invoice with id or number ${matchName}`);
  }
}

export interface Attempt {
  /** attempts finished before this one */
  made: number;
  /** attempts allowed in all */
  max: number;
}

const INVOICE_ID_PREFIX = 'inv_';

/** The match window, and which fallbacks run after the file-name rules (config: INTAKE_MATCH_*). */
export interface MatchRules {
  windowMs: number;
  einvoice: boolean;
  subject: boolean;
  nameToken: boolean;
}

type Match = { invoiceId: string; by: MatchedBy } | { deletedId: string } | { ambiguous: string[] } | undefined;

export class IntakeProcessor {
  constructor(
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly documents: DocumentService,
    private readonly checkPdf: PdfChecker,
    private readonly rules: MatchRules,
    private readonly events?: DomainEvents,
    /** bytes received by this very process, if any: saves reading them back */
    private readonly cache?: StagedBytesCache,
    private readonly now: () => number = Date.now,
  ) {}

  async process(ref: IntakeJobRef, attempt: Attempt): Promise<ProcessOutcome> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    const cached = this.cache?.take(ref.intakeId);
    const staged = await repo.loadStaged(this.db, scope, ref.intakeId, !cached, true);
    if (!staged) return { status: 'skipped', why: 'no intake record (purged)' };
    const { record } = staged;
    if (record.status === 'attached') return { status: 'skipped', why: 'already attached' };
    const emit = (status: IntakeStatus, reason: string | null) =>
      this.events?.emit('intakeStatus', { scope, intakeId: record.id, channel: record.channel, status, reason });
    const fail = async (reason: string, invoiceId: string | null = null): Promise<ProcessOutcome> => {
      // attached meanwhile (another run): nothing changed, nothing to announce
      if (await changeIntakeStatus(this.outbox, scope, record.id, 'failed', (q) => repo.markFailed(q, scope, record.id, reason, invoiceId))) emit('failed', reason);
      return { status: 'failed', reason };
    };

    const name = normaliseFileName(record.filename);
    if (!name.ok) return fail(name.reason);
    if (!staged.hasContent) return fail('The staged file is no longer available');
    const bytes = cached ?? staged.content!;

    // the number rule was answered with the record when its stored match name is this one
    const known = staged.matchName === name.matchName ? staged.invoiceByNumber : undefined;
    let match = await this.matchName(scope, name.matchName, known);
    let einvoice: string[] | undefined;
    if (!match) {
      // Check now, so that a broken file fails at once instead of waiting for its invoice; the
      // one parse also reads the e-invoice inside, which the fallbacks need.
      const verdict = await this.checkPdf(bytes);
      if (!verdict.ok) return fail(verdict.reason);
      einvoice = this.rules.einvoice ? verdict.einvoiceNumbers : [];
      match = await this.fallbacks(scope, name.matchName, staged.subject, einvoice);
    }
    if (!match) {
      const expected = [name.matchName, ...einvoice!.map((n) => `the e-invoice's number ${n}`)].join(' or ');
      const until = record.receivedAt.getTime() + this.rules.windowMs;
      if (this.now() >= until || attempt.made + 1 >= attempt.max) return fail(noInvoiceReason(expected));
      const waiting = `Waiting for an invoice with id or number ${expected} until ${new Date(until).toISOString()}`;
      // import.waiting once, when it starts waiting; later tries only update the reason
      if (record.status === 'waiting') await repo.markWaiting(this.db, scope, record.id, waiting);
      else {
        await changeIntakeStatus(this.outbox, scope, record.id, 'waiting', (q) => repo.markWaiting(q, scope, record.id, waiting));
        emit('waiting', waiting);
      }
      // An invoice created while we looked wakes only files already marked waiting: look once more.
      match = (await this.matchName(scope, name.matchName)) ?? (await this.fallbacks(scope, name.matchName, staged.subject, einvoice!));
      if (!match) throw new WaitingForInvoice(name.matchName, until);
    }
    if ('deletedId' in match) return fail(`The invoice ${match.deletedId} was deleted`);
    if ('ambiguous' in match) return fail(ambiguityReason(match.ambiguous));

    const { invoiceId } = match;
    let attached;
    try {
      attached = await this.documents.attach(scope, {
        invoiceId, filename: name.documentName, bytes, source: record.channel, staged: { intakeId: record.id, sha256: record.sha256 },
        // checked above when a fallback matched: the bytes are not parsed twice
        checked: einvoice !== undefined,
      });
    } catch (e) {
      if (e instanceof PdfContentError) return fail(e.reason, invoiceId);
      if (e instanceof DomainError && (e.kind === 'not_found' || e.kind === 'gone')) return fail(`The invoice ${invoiceId} was deleted`, invoiceId);
      throw e; // database trouble and the like: transient, the job retries
    }
    const { document, changed } = attached;
    const note = changed ? null : 'The invoice already had this exact file; nothing changed';
    await changeIntakeStatus(this.outbox, scope, record.id, 'attached', (q) => repo.markAttached(q, scope, record.id, invoiceId, document.id, note, match.by));
    emit('attached', note);
    return { status: 'attached', invoiceId, documentId: document.id, changed };
  }

  /** The job's retries are used up on a transient error: the record says why it stopped. */
  async giveUp(ref: IntakeJobRef, reason: string): Promise<void> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    if (!(await changeIntakeStatus(this.outbox, scope, ref.intakeId, 'failed', (q) => repo.markFailed(q, scope, ref.intakeId, reason)))) return;
    const record = (await repo.find(this.db, scope, ref.intakeId))?.record;
    if (record) this.events?.emit('intakeStatus', { scope, intakeId: record.id, channel: record.channel, status: 'failed', reason });
  }


  /** The spec's rules: invoice id first, then invoice number (exact, then case-insensitive when unambiguous). */
  private async matchName(scope: Scope, name: string, knownByNumber?: string | null): Promise<Match> {
    // only names with the id prefix can be ids: bulk uploads named by number skip that query
    const byId = name.startsWith(INVOICE_ID_PREFIX) ? await invoices.find(this.db, scope, name) : undefined;
    if (byId && !byId.deleted) return { invoiceId: byId.record.id, by: 'invoice_id' };
    const byNumber = knownByNumber === undefined ? (await invoices.findByNumber(this.db, scope, name))?.id : knownByNumber;
    if (byNumber) return { invoiceId: byNumber, by: 'invoice_number' };
    return byId ? { deletedId: byId.record.id } : undefined;
  }

  /**
   * The e-invoice's numbers, then the subject's tokens, then the name's: the first that names
   * exactly one invoice wins. Every candidate goes to the number index in one query. Several
   * invoices and no single one later: ambiguous, the record names them.
   */
  private async fallbacks(scope: Scope, name: string, subject: string | null, einvoice: string[]): Promise<Match> {
    const stages: [MatchedBy, Candidate[]][] = [['einvoice', einvoice.map((text) => ({ text }))]];
    if (this.rules.subject && subject) stages.push(['subject', tokenCandidates(subject)]);
    if (this.rules.nameToken) stages.push(['name_token', tokenCandidates(name)]);
    const all = stages.flatMap(([, c]) => c.map((x) => x.text));
    if (!all.length) return undefined;
    const found = await invoices.findNumbers(this.db, scope, all);
    let ambiguous: string[] | undefined;
    for (const [by, candidates] of stages) {
      const r = resolve(candidates, found);
      if (r && 'invoiceId' in r) return { invoiceId: r.invoiceId, by };
      ambiguous ??= r?.ambiguous;
    }
    return ambiguous && { ambiguous };
  }
}
