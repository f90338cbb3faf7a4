// The invoice resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { Invoice } from '../../../domain/models.ts';
import { formatCents } from '../../../domain/money.ts';
import { formatDate } from '../../../domain/dates.ts';
import { self } from '../../hal.ts';

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
