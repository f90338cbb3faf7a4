// The payment resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { Payment } from '../../../domain/models.ts';
import { formatCents } from '../../../domain/money.ts';
import { formatDate } from '../../../domain/dates.ts';
import { self } from '../../hal.ts';

const paymentFields = (base: string, p: Payment) => ({
  resource: 'payment' as const,
  id: p.id,
  date: formatDate(p.date),
  amount: formatCents(p.amountCents),
  method: p.method,
  _links: self(base, `/v2/payments/${p.id}`),
});

const invoiceAmounts = (p: Payment) => ({ invoiceTotal: formatCents(p.invoice.totalCents), invoiceBalance: formatCents(p.invoice.balanceCents) });

/** The answer to POST /v2/payments: the invoice's id and its amounts after the payment, flat. */
export const presentPaymentCreated = (base: string, p: Payment) => ({ ...paymentFields(base, p), invoice: p.invoice.id, ...invoiceAmounts(p) });

export const presentPaymentItem = (base: string, p: Payment) => ({
  ...paymentFields(base, p),
  invoice: { id: p.invoice.id, number: p.invoice.number, ...invoiceAmounts(p) },
  customer: p.customer,
});
