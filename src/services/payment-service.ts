import type { Database } from '../db/database.ts';
import type { UnitOfWork } from '../db/units.ts';
import type { Repositories } from '../repositories/repositories.ts';
import { parseDate } from '../domain/dates.ts';
import { DomainError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { PAYMENT_METHODS, type Payment, type PaymentMethod } from '../domain/models.ts';
import { parseAmount } from '../domain/money.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';
import type { Scope } from '../domain/scope.ts';
import type { EventOutbox } from './event-outbox.ts';
import type { InvoiceService } from './invoice-service.ts';

export interface PaymentInput {
  invoice: string;
  date: string;
  amount: string;
  method?: string;
}

interface PaymentServiceOptions {
  db: Database;
  repos: Pick<Repositories, 'payments'>;
  /** the invoice a payment lowers, in the payment's transaction */
  invoices: Pick<InvoiceService, 'takePayment' | 'current'>;
  maxCents: number;
  outbox: EventOutbox;
  units: UnitOfWork;
}

export class PaymentService {
  private readonly db: Database;
  private readonly repos: Pick<Repositories, 'payments'>;
  private readonly invoices: Pick<InvoiceService, 'takePayment' | 'current'>;
  private readonly maxCents: number;
  private readonly outbox: EventOutbox;
  private readonly units: UnitOfWork;

  constructor(o: PaymentServiceOptions) {
    this.db = o.db;
    this.repos = o.repos;
    this.invoices = o.invoices;
    this.maxCents = o.maxCents;
    this.outbox = o.outbox;
    this.units = o.units;
  }

  /** Records a payment and moves the invoice's balance toward 0.00 (balance-rules.ts); at 0.00 the invoice is paid. */
  async create(scope: Scope, input: PaymentInput): Promise<Payment> {
    const date = parseDate(input.date, 'date');
    const amountCents = parseAmount(input.amount, 'amount', this.maxCents);
    const method = (input.method?.trim().toLowerCase() || 'banktransfer') as PaymentMethod;
    if (!PAYMENT_METHODS.includes(method)) throw DomainError.invalid(`Field method must be one of ${PAYMENT_METHODS.join(', ')}`, 'method');
    if (amountCents === 0) throw DomainError.unprocessable('The amount must not be 0.00', 'amount');
    return this.units.transaction(async (tx) => {
      const { invoice, paid } = await this.invoices.takePayment(tx, scope, input.invoice, amountCents);
      const id = newId('pay');
      await this.repos.payments.insert(tx, scope, { id, invoiceId: invoice.id, date, amountCents, method });
      const payment = (await this.repos.payments.find(tx, scope, id))!;
      await this.outbox.record(tx, scope, 'payment.created', () => ({ resource: 'payment', payment }));
      if (paid)
        await this.outbox.record(tx, scope, 'invoice.paid', async () => ({ resource: 'invoice', invoice: await this.invoices.current(tx, scope, invoice.id) }));
      return payment;
    });
  }

  async get(scope: Scope, id: string): Promise<Payment> {
    return DomainError.unlessFound(await this.repos.payments.find(this.db, scope, id), 'payment', id);
  }

  list(scope: Scope, req: PageRequest): Promise<Page<Payment>> {
    return this.repos.payments.page(this.db, scope, req);
  }
}
