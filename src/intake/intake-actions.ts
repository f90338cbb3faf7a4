// What a person (dashboard) or a back-end (POST /v2/imports/{id}/...) does with a received file
// that did not match: run it again, assign it to an invoice by hand, or discard it.
import { whenCommitted } from '../db/units.ts';
import type { Database } from '../db/database.ts';
import { DomainError } from '../domain/errors.ts';
import type { ImportRecord, IntakeStatus } from '../domain/intake.ts';
import type { Scope } from '../domain/scope.ts';
import { PdfContentError, type DocumentService } from '../services/document-service.ts';
import { intakeReason } from '../domain/intake-reasons.ts';
import type { DomainEvents } from '../services/domain-events.ts';
import type { EventOutbox } from '../services/event-outbox.ts';
import type { InvoiceService } from '../services/invoice-service.ts';
import type { SenderPolicyService } from '../services/sender-policy-service.ts';
import { normaliseFileName } from './file-name.ts';
import type { IntakeScheduler } from './intake-jobs.ts';
import type { StagedImport } from './intake-repository.ts';
import type { IntakeRepositories } from './intake-repositories.ts';
import { changeIntakeStatus } from './status-change.ts';

interface IntakeActionsOptions {
  db: Database;
  repos: Pick<IntakeRepositories, 'intake' | 'documentLinks'>;
  scheduler: IntakeScheduler;
  documents: DocumentService;
  invoices: Pick<InvoiceService, 'byIdOrNumber'>;
  outbox: EventOutbox;
  events?: DomainEvents;
  senders?: Pick<SenderPolicyService, 'addSender'>;
}

export class IntakeActions {
  private readonly db: Database;
  private readonly repos: Pick<IntakeRepositories, 'intake' | 'documentLinks'>;
  private readonly scheduler: IntakeScheduler;
  private readonly documents: DocumentService;
  private readonly invoices: Pick<InvoiceService, 'byIdOrNumber'>;
  private readonly outbox: EventOutbox;
  private readonly events: DomainEvents | undefined;
  private readonly senders: Pick<SenderPolicyService, 'addSender'> | undefined;

  constructor(o: IntakeActionsOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.scheduler = o.scheduler;
    this.documents = o.documents;
    this.invoices = o.invoices;
    this.outbox = o.outbox;
    this.events = o.events;
    this.senders = o.senders;
  }

  /**
   * A failed file goes through matching again now (its invoice may exist by now); a waiting one
   * runs now instead of at its next backoff tick. The match window is not extended: a file whose
   * invoice still does not exist fails again at once.
   */
  async retry(scope: Scope, id: string): Promise<ImportRecord> {
    const staged = await this.staged(scope, id);
    const { status } = staged.record;
    if (status === 'waiting' || status === 'received') {
      await whenCommitted(() => this.scheduler.promote(id));
      return staged.record;
    }
    if (status !== 'failed') throw DomainError.conflict(`The import ${id} is ${status}; only a failed or waiting file can be retried`);
    if (!staged.hasContent)
      throw DomainError.conflict(
        `The import ${id} cannot be retried: its file was refused on arrival or is no longer kept (${staged.record.reason ?? 'no content'})`,
      );
    if (await changeIntakeStatus(this.outbox, this.repos.intake, scope, id, 'received', (q) => this.repos.intake.markRetried(q, scope, id))) {
      this.emit(scope, staged.record, 'received', null);
      const ref = { intakeId: id, accountId: scope.accountId, mode: scope.mode };
      await whenCommitted(async () => this.scheduler.restore(ref, await this.scheduler.state(id)));
    }
    return this.record(scope, id);
  }

  /**
   * A held file (its sender was not allowed) goes on to matching; with `addSender`, its sender is
   * put on the scope's list in the same step, so its next files are not held (when authenticated).
   */
  async release(scope: Scope, id: string, addSender = false): Promise<ImportRecord> {
    const { record } = await this.staged(scope, id);
    if (record.status !== 'held') throw DomainError.conflict(`The import ${id} is ${record.status}; only a held file can be released`);
    if (addSender && this.senders) await this.senders.addSender(scope, record.senderVerdict?.from || record.sender);
    if (await changeIntakeStatus(this.outbox, this.repos.intake, scope, id, 'received', (q) => this.repos.intake.markRetried(q, scope, id, 'held'))) {
      this.emit(scope, record, 'received', null);
      await whenCommitted(() => this.scheduler.enqueue({ intakeId: id, accountId: scope.accountId, mode: scope.mode }));
    }
    return this.record(scope, id);
  }

  /** Attaches the file to the invoice with this id or number, through the documents' one path. */
  async attach(scope: Scope, id: string, invoiceRef: string): Promise<ImportRecord> {
    const staged = await this.staged(scope, id, true);
    const { record } = staged;
    if (record.status === 'attached')
      throw DomainError.conflict(`The import ${id} is attached to ${record.invoiceId} already; upload it again to attach it elsewhere`);
    if (!staged.content) throw DomainError.conflict(`The import ${id} cannot be attached: its file was refused on arrival or is no longer kept`);
    const invoice = await this.invoices.byIdOrNumber(scope, invoiceRef);
    const name = normaliseFileName(record.filename);
    const filename = name.ok ? name.documentName : 'document.pdf';
    const note = intakeReason('assigned', { number: invoice.invoiceNumber });
    const texts = {
      note: { changed: note, unchanged: note },
      history: { changed: note, unchanged: note },
      replaced: intakeReason('document_replaced', { filename, number: invoice.invoiceNumber, by: 'manual' }),
    };
    try {
      // the record is marked attached by intake's own statement in the attach's transaction, import.attached with it
      await this.documents.attach(scope, {
        invoiceId: invoice.id,
        filename,
        bytes: staged.content,
        source: record.channel,
        staged: { intakeId: id, sha256: record.sha256 },
        matchedBy: 'manual',
        followUp: {
          part: this.repos.documentLinks.markAttached(scope, id, 'manual', texts),
          event: 'import.attached',
          subject: (q) => async () => {
            const found = (await this.repos.intake.find(q, scope, id))?.record;
            return found && { resource: 'import', record: found };
          },
        },
      });
    } catch (e) {
      if (e instanceof PdfContentError) throw DomainError.unprocessable(`The file is not a usable PDF: ${e.reason.text}`, 'invoice');
      throw e;
    }
    this.emit(scope, record, 'attached', note.text);
    return this.record(scope, id);
  }

  /** Discards a file that is not attached: it leaves the lists, a later read answers 410. */
  async discard(scope: Scope, id: string): Promise<void> {
    const { record } = await this.staged(scope, id);
    const attachedNote = `The import ${id} is the document of invoice ${record.invoiceId} now; delete that with DELETE /v2/documents/${record.documentId}`;
    if (record.status === 'attached' || !(await this.repos.intake.discard(this.db, scope, id))) throw DomainError.conflict(attachedNote);
    await whenCommitted(() => this.scheduler.cancel(id));
  }

  private async staged(scope: Scope, id: string, withContent = false): Promise<StagedImport> {
    const staged = await this.repos.intake.loadStaged(this.db, scope, id, withContent);
    if (staged) return staged;
    const found = await this.repos.intake.find(this.db, scope, id);
    throw found ? DomainError.gone('import', id) : DomainError.notFound('import', id);
  }

  private async record(scope: Scope, id: string): Promise<ImportRecord> {
    return (await this.staged(scope, id)).record;
  }

  private emit(scope: Scope, r: ImportRecord, status: IntakeStatus, reason: string | null): void {
    this.events?.emit('intakeStatus', { scope, intakeId: r.id, channel: r.channel, status, reason });
  }
}
