import type { Database } from '../db/database.ts';
import { parseDate } from '../domain/dates.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { INVOICE_STATUSES, type Invoice, type InvoiceStatus } from '../domain/models.ts';
import { parseAmount } from '../domain/money.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import { customerRepository as customers } from '../repositories/customer-repository.ts';
import { documentRepository as documents } from '../repositories/document-repository.ts';
import { invoiceRepository as invoices, type InvoicePatch } from '../repositories/invoice-repository.ts';
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

export function parseStatus(raw: string | undefined, field = 'invoiceStatus'): InvoiceStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = raw.trim().toLowerCase() === 'canceled' ? 'cancelled' : raw.trim().toLowerCase();
  if (!INVOICE_STATUSES.includes(s as InvoiceStatus)) throw DomainError.invalid(`Field ${field} must be one of ${INVOICE_STATUSES.join(', ')}`, field);
  return s as InvoiceStatus;
}

export class InvoiceService {
  constructor(
    private readonly db: Database,
    private readonly maxCents: number,
    private readonly events: DomainEvents,
    private readonly outbox: EventOutbox,
  ) {}

  async create(scope: Scope, input: InvoiceInput): Promise<Invoice> {
    // NFC, as every name and e-invoice number is compared (a Mac sends ü as u + a combining mark)
    const number = input.invoiceNumber.trim().normalize('NFC');
    if (!number) throw DomainError.invalid('Field invoiceNumber is required', 'invoiceNumber');
    const totalCents = parseAmount(input.invoiceTotal, 'invoiceTotal', this.maxCents);
    const balanceCents = input.invoiceBalance === undefined || input.invoiceBalance === '' ? totalCents : parseAmount(input.invoiceBalance, 'invoiceBalance', this.maxCents);
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
    const created = await invoices.insertForCustomer(this.db, scope, inv);
    if (!created) {
      DomainError.unlessDeleted(await customers.find(this.db, scope, input.customer), 'customer', input.customer, 'customer');
      throw DomainError.conflict(`An invoice with number ${number} already exists.`, 'invoiceNumber');
    }
    this.events.emit('invoiceCreated', { scope, ...created });
    return created.invoice;
  }

  async get(scope: Scope, id: string): Promise<Invoice> {
    return DomainError.unlessDeleted(await invoices.find(this.db, scope, id), 'invoice', id);
  }

  openWithoutDocument(scope: Scope, limit = 100): Promise<Invoice[]> {
    return invoices.openWithoutDocument(this.db, scope, limit);
  }

  list(scope: Scope, req: PageRequest, status?: string): Promise<Page<Invoice>> {
    return invoices.page(this.db, scope, req, parseStatus(status));
  }

  async update(scope: Scope, id: string, input: InvoicePatchInput): Promise<Invoice> {
    const patch: InvoicePatch = {
      invoiceDate: input.invoiceDate === undefined ? undefined : parseDate(input.invoiceDate, 'invoiceDate'),
      invoiceDuedate: input.invoiceDuedate === undefined ? undefined : parseDate(input.invoiceDuedate, 'invoiceDuedate'),
      totalCents: input.invoiceTotal === undefined ? undefined : parseAmount(input.invoiceTotal, 'invoiceTotal', this.maxCents),
      balanceCents: input.invoiceBalance === undefined ? undefined : parseAmount(input.invoiceBalance, 'invoiceBalance', this.maxCents),
      status: parseStatus(input.invoiceStatus),
    };
    return this.outbox.transaction(async (tx, record) => {
      const before = DomainError.unlessDeleted(await invoices.find(tx, scope, id, true), 'invoice', id);
      checkBalance(patch.totalCents ?? before.totalCents, patch.balanceCents ?? before.balanceCents);
      await invoices.update(tx, scope, id, patch);
      const invoice = (await invoices.find(tx, scope, id))!.record;
      if (invoice.status === 'paid' && before.status !== 'paid') await record(scope, 'invoice.paid', () => ({ resource: 'invoice', invoice }));
      return invoice;
    });
  }

  async delete(scope: Scope, id: string): Promise<void> {
    await this.outbox.transaction(async (tx, record) => {
      DomainError.unlessDeleted(await invoices.find(tx, scope, id, true), 'invoice', id);
      await record(scope, 'document.deleted', async () => {
        const document = await documents.findCurrentForInvoice(tx, scope, id);
        return document && { resource: 'document', document };
      });
      await invoices.markDeleted(tx, scope, id);
      await documents.deleteForInvoice(tx, scope, id); // a deleted invoice's PDF is gone too (410)
    });
  }
}

function checkBalance(totalCents: number, balanceCents: number): void {
  if (balanceCents > totalCents) throw DomainError.unprocessable('The balance is higher than the invoice total', 'invoicebalance');
}
