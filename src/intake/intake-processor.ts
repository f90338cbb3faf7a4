// The worker's decision for one staged file: name -> invoice (id first, then number, inside the
// file's account and mode) -> PDF check -> attach through DocumentService, the code path of
// POST /v2/documents. Idempotent: a job that runs again (crash, reconciler) attaches nothing twice.
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { Invoice } from '../domain/models.ts';
import type { PdfChecker } from '../domain/pdf.ts';
import type { Scope } from '../domain/scope.ts';
import { invoiceRepository as invoices } from '../repositories/invoice-repository.ts';
import { PdfContentError, type DocumentService } from '../services/document-service.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import { changeIntakeStatus } from './status-change.ts';
import { noInvoiceReason, normaliseFileName } from './file-name.ts';
import type { IntakeJobRef } from './intake-jobs.ts';
import type { IntakeStatus } from '../domain/intake.ts';
import { intakeRepository as repo } from './intake-repository.ts';
import type { StagedBytesCache } from './staged-bytes-cache.ts';

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

type Match = { invoice: Invoice } | { deletedId: string } | undefined;

export class IntakeProcessor {
  constructor(
    private readonly db: Database,
    private readonly outbox: EventOutbox,
    private readonly documents: DocumentService,
    private readonly checkPdf: PdfChecker,
    private readonly windowMs: number,
    private readonly events?: DomainEvents,
    /** bytes received by this very process, if any: saves reading them back */
    private readonly cache?: StagedBytesCache,
    private readonly now: () => number = Date.now,
  ) {}

  async process(ref: IntakeJobRef, attempt: Attempt): Promise<ProcessOutcome> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    const cached = this.cache?.take(ref.intakeId);
    const staged = await repo.loadStaged(this.db, scope, ref.intakeId, !cached);
    if (!staged) return { status: 'skipped', why: 'no intake record (purged)' };
    const { record } = staged;
    if (record.status === 'attached') return { status: 'skipped', why: 'already attached' };
    const emit = (status: IntakeStatus, reason: string | null) =>
      this.events?.emit('intakeStatus', { scope, intakeId: record.id, channel: record.channel, status, reason });
    const fail = async (reason: string, invoiceId: string | null = null): Promise<ProcessOutcome> => {
      await changeIntakeStatus(this.outbox, scope, record.id, 'failed', (q) => repo.markFailed(q, scope, record.id, reason, invoiceId));
      emit('failed', reason);
      return { status: 'failed', reason };
    };

    const name = normaliseFileName(record.filename);
    if (!name.ok) return fail(name.reason);
    if (!staged.hasContent) return fail('The staged file is no longer available');
    const bytes = cached ?? staged.content!;

    let match = await this.match(scope, name.matchName);
    if (!match) {
      // Check now, so that a broken file fails at once instead of waiting for its invoice.
      const verdict = await this.checkPdf(bytes);
      if (!verdict.ok) return fail(verdict.reason);
      const until = record.receivedAt.getTime() + this.windowMs;
      if (this.now() >= until || attempt.made + 1 >= attempt.max) return fail(noInvoiceReason(name.matchName));
      const waiting = `Waiting for an invoice with id or number ${name.matchName} until ${new Date(until).toISOString()}`;
      // import.waiting once, when it starts waiting; later tries only update the reason
      if (record.status === 'waiting') await repo.markWaiting(this.db, scope, record.id, waiting);
      else {
        await changeIntakeStatus(this.outbox, scope, record.id, 'waiting', (q) => repo.markWaiting(q, scope, record.id, waiting));
        emit('waiting', waiting);
      }
      // An invoice created while we looked wakes only files already marked waiting: look once more.
      match = await this.match(scope, name.matchName);
      if (!match) throw new WaitingForInvoice(name.matchName, until);
    }
    if ('deletedId' in match) return fail(`The invoice ${match.deletedId} was deleted`);

    const invoiceId = match.invoice.id;
    let attached;
    try {
      attached = await this.documents.attach(scope, { invoiceId, filename: name.documentName, bytes, source: record.channel, staged: { intakeId: record.id, sha256: record.sha256 } });
    } catch (e) {
      if (e instanceof PdfContentError) return fail(e.reason, invoiceId);
      if (e instanceof DomainError && (e.kind === 'not_found' || e.kind === 'gone')) return fail(`The invoice ${invoiceId} was deleted`, invoiceId);
      throw e; // database trouble and the like: transient, the job retries
    }
    const { document, changed } = attached;
    const note = changed ? null : 'The invoice already had this exact file; nothing changed';
    await changeIntakeStatus(this.outbox, scope, record.id, 'attached', (q) => repo.markAttached(q, scope, record.id, invoiceId, document.id, note));
    emit('attached', note);
    return { status: 'attached', invoiceId, documentId: document.id, changed };
  }

  /** The job's retries are used up on a transient error: the record says why it stopped. */
  async giveUp(ref: IntakeJobRef, reason: string): Promise<void> {
    const scope: Scope = { accountId: ref.accountId, mode: ref.mode };
    await changeIntakeStatus(this.outbox, scope, ref.intakeId, 'failed', (q) => repo.markFailed(q, scope, ref.intakeId, reason));
    const record = (await repo.find(this.db, scope, ref.intakeId))?.record;
    if (record) this.events?.emit('intakeStatus', { scope, intakeId: record.id, channel: record.channel, status: 'failed', reason });
  }


  /** Invoice id first, then invoice number (exact, then case-insensitive when unambiguous). */
  private async match(scope: Scope, name: string): Promise<Match> {
    // only names with the id prefix can be ids: bulk uploads named by number skip that query
    const byId = name.startsWith(INVOICE_ID_PREFIX) ? await invoices.find(this.db, scope, name) : undefined;
    if (byId && !byId.deleted) return { invoice: byId.record };
    const byNumber = await invoices.findByNumber(this.db, scope, name);
    if (byNumber) return { invoice: byNumber };
    return byId ? { deletedId: byId.record.id } : undefined;
  }
}
