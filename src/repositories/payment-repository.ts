import type { Queryable } from '../db/database.ts';
import type { Payment, PaymentMethod } from '../domain/models.ts';
import type { Scope } from '../domain/scope.ts';
import { scopedReads, type ScopedSource } from './scoped.ts';

const source: ScopedSource = {
  table: 'payments',
  columns: `t.id, t.payment_date::text as payment_date, t.amount_cents, t.method, t.invoice_id, i.invoice_number, i.total_cents,
    i.balance_cents, i.customer_id, c.customer_code, c.name as customer_name`,
  joins: 'join invoices i on i.id = t.invoice_id join customers c on c.id = i.customer_id',
};

/** A row of `source`: the payment with its invoice's and customer's fields. */
interface PaymentRow {
  id: string;
  /** YYYY-MM-DD (selected as text) */
  payment_date: string;
  amount_cents: number;
  method: PaymentMethod;
  invoice_id: string;
  invoice_number: string;
  total_cents: number;
  balance_cents: number;
  customer_id: string;
  customer_code: string;
  customer_name: string;
}

const toPayment = (r: PaymentRow): Payment => ({
  id: r.id,
  date: r.payment_date,
  amountCents: r.amount_cents,
  method: r.method,
  invoice: { id: r.invoice_id, number: r.invoice_number, totalCents: r.total_cents, balanceCents: r.balance_cents },
  customer: { id: r.customer_id, number: r.customer_code, name: r.customer_name },
});

export class PaymentRepository extends scopedReads(source, toPayment) {
  async insert(q: Queryable, scope: Scope, p: { id: string; invoiceId: string; date: string; amountCents: number; method: string }): Promise<void> {
    await q.query('insert into payments (id, account_id, mode, invoice_id, payment_date, amount_cents, method) values ($1, $2, $3, $4, $5, $6, $7)', [
      p.id,
      scope.accountId,
      scope.mode,
      p.invoiceId,
      p.date,
      p.amountCents,
      p.method,
    ]);
  }
}
