// Domain records -> the spec's HAL resources (amounts as two-decimal strings, dates DD-MM-YYYY).
import { formatDate } from '../domain/dates.ts';
import type { Customer, DocumentMeta, Invoice, Payment } from '../domain/models.ts';
import { formatCents } from '../domain/money.ts';
import { pageLinks, type Page } from '../domain/pagination.ts';
import { HAL } from './schemas/common.ts';

const self = (base: string, path: string) => ({ self: { href: `${base}${path}`, type: HAL } as const });

export const presentCustomer = (base: string, customer: Customer) => ({
  resource: 'customer' as const,
  id: customer.id,
  customerCode: customer.customerCode,
  number: customer.customerCode,
  name: customer.name,
  address: { address: customer.address, postalcode: customer.postalcode, city: customer.city, country: customer.country },
  contact: customer.contact,
  phone: customer.phone,
  mobile: customer.mobile,
  email: customer.email,
  invoiceEmail: customer.invoiceEmail,
  registrationNumber: customer.registrationNumber,
  language: customer.language,
  _links: self(base, `/v2/customers/${customer.id}`),
});

export const presentInvoice = (base: string, i: Invoice) => ({
  resource: 'invoice' as const,
  id: i.id,
  status: i.status,
  invoiceNumber: i.invoiceNumber,
  invoiceDate: formatDate(i.invoiceDate),
  invoiceDuedate: formatDate(i.invoiceDuedate),
  invoiceTotal: formatCents(i.totalCents),
  invoiceBalance: formatCents(i.balanceCents),
  document: i.document,
  customer: i.customer,
  _links: self(base, `/v2/invoices/${i.id}`),
});

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

export const presentDocument = (base: string, d: DocumentMeta) => ({
  resource: 'document' as const,
  id: d.id,
  invoice: d.invoiceId,
  filename: d.filename,
  mediatype: d.mediaType,
  size: d.size,
  sha256: d.sha256,
  source: d.source,
  createdAt: d.createdAt.toISOString(),
  _links: {
    ...self(base, `/v2/documents/${d.id}`), content: { href: `${base}/v2/documents/${d.id}/content`, type: 'application/pdf' } as const,
    ...(d.originalName ? { original: { href: `${base}/v2/documents/${d.id}/content?format=xml`, type: 'application/xml' } as const } : {}),
  },
});

/** The list envelope: `<key>: [...]`, `count`, `links.previous/next`. */
export function envelope<T, R>(base: string, path: string, key: string, page: Page<T>, limit: number, present: (base: string, item: T) => R, filters: Record<string, string | undefined> = {}) {
  return { [key]: page.items.map((i) => present(base, i)), count: page.items.length, links: pageLinks(`${base}${path}`, page, limit, filters) };
}
