// The service's records as the domain sees them: amounts in cents, dates ISO (YYYY-MM-DD).
import type { MatchedBy } from './intake.ts';

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
  /** the evidence that found its invoice (intake); null: the invoice was named explicitly (API) */
  matchedBy: MatchedBy | null;
  /** the name of the XML e-invoice it was rendered from (xrechnung.xml, factur-x.xml), kept beside it */
  originalName?: string | null;
}

/** An account as the admin API shows it (never its keys). */
export interface AccountView {
  id: string;
  name: string;
  ftpUsername: string;
  importAddresses: { live: string; test: string };
  createdAt: string;
  /** a disabled account's keys, FTP/SFTP login and import addresses are refused */
  disabled: boolean;
  /** the SFTP server's host keys, for users to verify (admin API) */
  sftpHostKeys?: { type: string; fingerprint: string }[];
}

/** How an account's systems reach the file channels (GET /v2/account, the dashboard's settings). */
export interface ConnectionDetails {
  ftp: {
    /** the host name clients use (FTP_PUBLIC_HOST, else PUBLIC_URL's host); undefined: the API's own host */
    host?: string;
    port: number;
    /** explicit FTPS (AUTH TLS) is offered; `tlsRequired`: plain FTP is refused */
    tls: boolean;
    tlsRequired: boolean;
    implicitFtpsPort: number | null;
    /** SHA-256 fingerprint of the FTPS certificate, AA:BB:... (null: no certificate yet) */
    certificateSha256: string | null;
  };
  sftp: {
    host?: string;
    port: number;
    /** the host keys' fingerprints (SHA256:..., as OpenSSH shows them) a user checks on first connect */
    hostKeys: { type: string; fingerprint: string }[];
  };
}
