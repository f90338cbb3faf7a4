// What a person (dashboard) or a back-end (POST /v2/imports/{id}/...) does with a received file
// that did not match: run it again, assign it to an invoice by hand, or discard it.
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
import type { StagedIntake } from './intake-repository.ts';
import type { IntakeRepositories } from './intake-repositories.ts';
import { changeIntakeStatus } from './status-change.ts';

export class IntakeActions {
  constructor(
    private readonly db: Database,
    private readonly repos: Pick<IntakeRepositories, 'intake'>,
    private readonly scheduler: IntakeScheduler,
    private readonly documents: DocumentService,
    private readonly invoices: Pick<InvoiceService, 'byIdOrNumber'>,
    private readonly outbox: EventOutbox,
    private readonly events?: DomainEvents,
    private readonly senders?: Pick<SenderPolicyService, 'addSender'>,
  ) {}

  /**
   * A failed file goes through matching again now (its invoice may exist by now); a waiting one
   * runs now instead of at its next backoff tick. The match window is not extended: a file whose
   * invoice still does not exist fails again at once.
   */
  async retry(scope: Scope, id: string): Promise<ImportRecord> {
    const staged = await this.staged(scope, id);
    const { status } = staged.record;
    if (status === 'waiting' || status === 'received') {
      await this.scheduler.promote(id);
      return staged.record;
    }
    if (status !== 'failed') throw DomainError.conflict(`The import ${id} is ${status}; only a failed or waiting file can be retried`);
    if (!staged.hasContent) throw DomainError.conflict(`The import ${id} cannot be retried: its file was refused on arrival or is no longer kept (${staged.record.reason ?? 'no content'})`);
    if (await changeIntakeStatus(this.outbox, this.repos.intake, scope, id, 'received', (q) => this.repos.intake.markRetried(q, scope, id))) {
      this.emit(scope, staged.record, 'received', null);
      const ref = { intakeId: id, accountId: scope.accountId, mode: scope.mode };
      await this.scheduler.restore(ref, await this.scheduler.state(id));
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
      await this.scheduler.enqueue({ intakeId: id, accountId: scope.accountId, mode: scope.mode });
    }
    return this.record(scope, id);
  }

  /** Attaches the file to the invoice with this id or number, through the documents' one path. */
  async attach(scope: Scope, id: string, invoiceRef: string): Promise<ImportRecord> {
    const staged = await this.staged(scope, id, true);
    const { record } = staged;
    if (record.status === 'attached') throw DomainError.conflict(`The import ${id} is attached to ${record.invoiceId} already; upload it again to attach it elsewhere`);
    if (!staged.content) throw DomainError.conflict(`The import ${id} cannot be attached: its file was refused on arrival or is no longer kept`);
    const invoice = await this.invoices.byIdOrNumber(scope, invoiceRef);
    const name = normaliseFileName(record.filename);
    let attached;
    try {
      attached = await this.documents.attach(scope, {
        invoiceId: invoice.id, filename: name.ok ? name.documentName : 'document.pdf', bytes: staged.content, source: record.channel,
        staged: { intakeId: id, sha256: record.sha256 }, matchedBy: 'manual',
      });
    } catch (e) {
      if (e instanceof PdfContentError) throw DomainError.unprocessable(`The file is not a usable PDF: ${e.reason.text}`, 'invoice');
      throw e;
    }
    const note = intakeReason('assigned', { number: invoice.invoiceNumber });
    await changeIntakeStatus(this.outbox, this.repos.intake, scope, id, 'attached', (q) => this.repos.intake.markAttached(q, scope, id, invoice.id, attached.document.id, note, 'manual'));
    this.emit(scope, record, 'attached', note.text);
    return this.record(scope, id);
  }

  /** Discards a file that is not attached: it leaves the lists, a later read answers 410. */
  async discard(scope: Scope, id: string): Promise<void> {
    const { record } = await this.staged(scope, id);
    const attachedNote = `The import ${id} is the document of invoice ${record.invoiceId} now; delete that with DELETE /v2/documents/${record.documentId}`;
    if (record.status === 'attached' || !(await this.repos.intake.discard(this.db, scope, id))) throw DomainError.conflict(attachedNote);
    await this.scheduler.cancel(id);
  }

  private async staged(scope: Scope, id: string, withContent = false): Promise<StagedIntake> {
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
