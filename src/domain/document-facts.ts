// What the service knows of a document once it is read: an e-invoice's reading, a PDF's verdict,
// the size limit. Types and rules only; the reading itself (pdf.js, pdf-lib, fast-xml-parser,
// pkijs) is src/formats/.
import type { IntakeReason } from './intake-reasons.ts';

/** An invoice's totals as its XML states them, in cents: the grand total (BT-112) and the amount due (BT-115). */
export interface EinvoiceTotals {
  grandCents?: number;
  dueCents?: number;
  currency?: string;
}

/**
 * What a credit note says besides its number: that it is one (type code 381 and kin, or UBL's
 * CreditNote root), and the invoices it corrects (BT-25), which are never evidence for attaching.
 */
export interface CreditNoteFacts {
  creditNote?: true;
  /** the preceding invoices' numbers (BT-25), NFC */
  corrects?: string[];
}

/**
 * What an XML says: an invoice's number (and totals, signed as the invoice's total in the account:
 * a credit note's are negative), something that is no invoice, or an invoice whose number could
 * not be read.
 */
export type EinvoiceReading = ({ kind: 'invoice'; number: string } & EinvoiceTotals & CreditNoteFacts) | { kind: 'other'; what: string } | { kind: 'unread' };

export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export type PdfVerdict =
  | {
      ok: true;
      /** null: encrypted with an owner password only, its page tree not readable without decrypting */
      pages: number | null;
      /** what its embedded XML files (Factur-X, ZUGFeRD, XRechnung, UBL) say, one reading each */
      einvoices: EinvoiceReading[];
    }
  | { ok: false; reason: IntakeReason };

export type PdfChecker = (bytes: Uint8Array) => Promise<PdfVerdict>;
