// The service's records as the domain sees them: amounts in cents, dates ISO (YYYY-MM-DD).

export type InvoiceStatus = 'concept' | 'open' | 'paid' | 'cancelled';
export const INVOICE_STATUSES: InvoiceStatus[] = ['concept', 'open', 'paid', 'cancelled'];
export const LANGUAGES = ['dutch', 'english', 'german', 'french'] as const;
export const UNRELEASED_LANGUAGES = ['italian', 'polish', 'spanish'] as const;
export const PAYMENT_METHODS = ['banktransfer', 'ideal', 'bancontact', 'sepa', 'creditcard'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface CustomerFields {
  name: string;
  address: string | null;
  postalcode: string | null;
  city: string | null;
  country: string;
  contact: string | null;
  phone: string | null;
  mobile: string | null;
  email: string | null;
  invoiceEmail: string | null;
  registrationNumber: string | null;
  language: string | null;
}

export interface Customer extends CustomerFields {
  id: string;
  customerCode: string;
}

export interface Invoice {
  id: string;
  status: InvoiceStatus;
  invoiceNumber: string;
  invoiceDate: string;
  invoiceDuedate: string;
  totalCents: number;
  balanceCents: number;
  document: string | null;
  customer: { id: string; number: string; name: string };
}

export interface Payment {
  id: string;
  date: string;
  amountCents: number;
  method: PaymentMethod;
  invoice: { id: string; number: string; totalCents: number; balanceCents: number };
  customer: { id: string; number: string; name: string };
}

export interface DocumentMeta {
  id: string;
  invoiceId: string;
  filename: string;
  mediaType: string;
  size: number;
  sha256: string;
  source: string;
  createdAt: Date;
}
