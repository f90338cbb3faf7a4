import type { Database, Queryable } from '../db/database.ts';
import type { UnitOfWork } from '../db/units.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { parseDate } from '../domain/dates.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { INVOICE_STATUSES, type Invoice, type InvoiceStatus } from '../domain/models.ts';
import { balanceAfterPayment, checkBalance } from '../domain/balance-rules.ts';
import { parseAmount } from '../domain/money.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import type { InvoiceNumberMatch, InvoicePatch } from '../repositories/invoice-repository.ts';
import type { Found } from '../repositories/scoped.ts';
import type { CustomerService } from './customer-service.ts';
import type { DocumentService } from './document-service.ts';
import type { DomainEvents } from './domain-events.ts';
import type { EventOutbox } from './event-outbox.ts';

export interface InvoiceInput {
  customer: string;
  invoiceNumber: string;
  invoiceDate: string;
  invoiceDuedate: string;
  invoiceTotal: string;
  invoiceBalance?: string;
  invoiceStatus?: string;
}

export type InvoicePatchInput = Partial<Pick<InvoiceInput, 'invoiceDate' | 'invoiceDuedate' | 'invoiceTotal' | 'invoiceBalance' | 'invoiceStatus'>>;

function parseStatus(raw: string | undefined, field = 'invoiceStatus'): InvoiceStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = raw.trim().toLowerCase() === 'canceled' ? 'cancelled' : raw.trim().toLowerCase();
  if (!INVOICE_STATUSES.includes(s as InvoiceStatus)) throw DomainError.invalid(`Field ${field} must be one of ${INVOICE_STATUSES.join(', ')}`, field);
  return s as InvoiceStatus;
}

interface InvoiceServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'invoices'>;
  /** a refused insert is explained by its customer; a deleted invoice's document goes with it */
  neighbours: { customers: Pick<CustomerService, 'find'>; documents: Pick<DocumentService, 'removeForInvoice'> };
  maxCents: number;
  events: DomainEvents;
  outbox: EventOutbox;
  units: UnitOfWork;
}

export class InvoiceService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'invoices'>;
  private readonly neighbours: { customers: Pick<CustomerService, 'find'>; documents: Pick<DocumentService, 'removeForInvoice'> };
  private readonly maxCents: number;
  private readonly events: DomainEvents;
  private readonly outbox: EventOutbox;
  private readonly units: UnitOfWork;

  constructor(o: InvoiceServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.neighbours = o.neighbours;
    this.maxCents = o.maxCents;
    this.events = o.events;
    this.outbox = o.outbox;
    this.units = o.units;
  }

  async create(scope: Scope, input: InvoiceInput): Promise<Invoice> {
    // NFC, as every name and e-invoice number is compared (a Mac sends ü as u + a combining mark)
    const number = input.invoiceNumber.trim().normalize('NFC');
    if (!number) throw DomainError.invalid('Field invoiceNumber is required', 'invoiceNumber');
    const totalCents = parseAmount(input.invoiceTotal, 'invoiceTotal', this.maxCents);
    const balanceCents =
      input.invoiceBalance === undefined || input.invoiceBalance === '' ? totalCents : parseAmount(input.invoiceBalance, 'invoiceBalance', this.maxCents);
    const inv = {
      id: newId('inv'),
      customerId: input.customer,
      invoiceNumber: number,
      invoiceDate: parseDate(input.invoiceDate, 'invoiceDate'),
      invoiceDuedate: parseDate(input.invoiceDuedate, 'invoiceDuedate'),
      totalCents,
      balanceCents,
      status: parseStatus(input.invoiceStatus) ?? 'open',
    };
    checkBalance(totalCents, balanceCents);
    // one statement on the happy path; only a refusal pays for finding out why
    const created = await this.repos.invoices.insertForCustomer(this.db, scope, inv);
    if (!created) {
      DomainError.unlessDeleted(await this.neighbours.customers.find(scope, input.customer), 'customer', input.customer, 'customer');
      throw DomainError.conflict(`An invoice with number ${number} already exists.`, 'invoiceNumber');
    }
    this.events.emit('invoiceCreated', { scope, invoice: created });
    return created;
  }

  async get(scope: Scope, id: string): Promise<Invoice> {
    return DomainError.unlessDeleted(await this.find(scope, id), 'invoice', id);
  }

  /** The invoice with this id, deleted ones included (deleted says so). */
  find(scope: Scope, id: string): Promise<Found<Invoice>> {
    return this.repos.invoices.find(this.db, scope, id);
  }

  /** The live invoice with this number (exact, else ignoring case when that is unambiguous). */
  findByNumber(scope: Scope, number: string): Promise<Invoice | undefined> {
    return this.repos.invoices.findByNumber(this.db, scope, number);
  }

  /** Live invoices whose number is one of `numbers` ignoring case and separators (intake's evidence). */
  findNumbers(scope: Scope, numbers: string[]): Promise<InvoiceNumberMatch[]> {
    return numbers.length ? this.repos.invoices.findNumbers(this.db, scope, numbers) : Promise.resolve([]);
  }

  /** The invoice a person names by id or number (intake's assign by hand). */
  async byIdOrNumber(scope: Scope, ref: string): Promise<Invoice> {
    const trimmed = ref.trim().normalize('NFC');
    const byId = trimmed.startsWith('inv_') ? await this.find(scope, trimmed) : undefined;
    if (byId?.deleted) throw DomainError.gone('invoice', trimmed, 'invoice');
    const invoice = byId?.record ?? (await this.findByNumber(scope, trimmed));
    if (!invoice) throw new DomainError('not_found', `No invoice exists with id or number ${trimmed}.`, 'invoice');
    return invoice;
  }

  openWithoutDocument(scope: Scope, limit = 100): Promise<Invoice[]> {
    return this.repos.invoices.openWithoutDocument(this.db, scope, limit);
  }

  list(scope: Scope, req: PageRequest, status?: string): Promise<Page<Invoice>> {
    return this.repos.invoices.page(this.db, scope, req, parseStatus(status));
  }

  async update(scope: Scope, id: string, input: InvoicePatchInput): Promise<Invoice> {
    const patch: InvoicePatch = {
      invoiceDate: input.invoiceDate === undefined ? undefined : parseDate(input.invoiceDate, 'invoiceDate'),
      invoiceDuedate: input.invoiceDuedate === undefined ? undefined : parseDate(input.invoiceDuedate, 'invoiceDuedate'),
      totalCents: input.invoiceTotal === undefined ? undefined : parseAmount(input.invoiceTotal, 'invoiceTotal', this.maxCents),
      balanceCents: input.invoiceBalance === undefined ? undefined : parseAmount(input.invoiceBalance, 'invoiceBalance', this.maxCents),
      status: parseStatus(input.invoiceStatus),
    };
    return this.units.transaction(async (tx) => {
      const before = DomainError.unlessDeleted(await this.repos.invoices.find(tx, scope, id, true), 'invoice', id);
      checkBalance(patch.totalCents ?? before.totalCents, patch.balanceCents ?? before.balanceCents);
      await this.repos.invoices.update(tx, scope, id, patch);
      const invoice = (await this.repos.invoices.find(tx, scope, id))!.record;
      if (invoice.status === 'paid' && before.status !== 'paid') await this.outbox.record(tx, scope, 'invoice.paid', () => ({ resource: 'invoice', invoice }));
      return invoice;
    });
  }

  async delete(scope: Scope, id: string): Promise<void> {
    await this.units.transaction(async (tx) => {
      DomainError.unlessDeleted(await this.repos.invoices.find(tx, scope, id, true), 'invoice', id);
      await this.repos.invoices.markDeleted(tx, scope, id);
      await this.neighbours.documents.removeForInvoice(tx, scope, id); // a deleted invoice's PDF is gone too (410)
    });
  }

  // In the caller's transaction (`tx`, which the caller's service opened): what a payment changes.

  /**
   * Moves the balance of the invoice, locked, toward 0.00 by a payment (a refund, negative, on a
   * credit note); at 0.00 it is paid. Refused (field `invoice` or `amount`) when the invoice is
   * missing, deleted, paid, cancelled, or the amount has the wrong sign or is beyond the balance.
   */
  async takePayment(tx: Queryable, scope: Scope, id: string, amountCents: number): Promise<{ invoice: Invoice; paid: boolean }> {
    const invoice = DomainError.unlessDeleted(await this.repos.invoices.find(tx, scope, id, true), 'invoice', id, 'invoice');
    if (invoice.status === 'paid' || invoice.status === 'cancelled') {
      throw DomainError.unprocessable(`The invoice is ${invoice.status}; it takes no payments`, 'invoice');
    }
    const balanceCents = balanceAfterPayment(invoice.totalCents, invoice.balanceCents, amountCents);
    await this.repos.invoices.update(tx, scope, invoice.id, { balanceCents, status: balanceCents === 0 ? 'paid' : undefined });
    return { invoice, paid: balanceCents === 0 };
  }

  /** The invoice as the caller's transaction sees it now. */
  async current(tx: Queryable, scope: Scope, id: string): Promise<Invoice> {
    return DomainError.unlessDeleted(await this.repos.invoices.find(tx, scope, id), 'invoice', id);
  }
}
