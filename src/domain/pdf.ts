// What makes a file an acceptable invoice document. Pure: the caller decides where it runs
// (the intake workers run it in a worker thread so 5 MB files never stall the event loop).
// pdf-lib is loaded by the first check, so only the threads that run checks carry it (not the
// main thread of every process, which only sniffs)
import { pageCountByStructure } from './pdf-structure.ts';

const reader = () => import('./pdf-reader.ts');

export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

export type PdfVerdict =
  | {
      ok: true;
      /** null: encrypted with an owner password only, its page tree not readable without decrypting */
      pages: number | null;
      /** the invoice numbers its embedded e-invoices (Factur-X, ZUGFeRD, UBL) name */
      einvoiceNumbers: string[];
    }
  | { ok: false; reason: string };

export function sniffPdf(bytes: Uint8Array): PdfVerdict | undefined {
  if (bytes.length === 0) return { ok: false, reason: 'The file is empty' };
  if (bytes.length > MAX_DOCUMENT_BYTES) return { ok: false, reason: `The file is larger than ${MAX_DOCUMENT_BYTES} bytes` };
  // %PDF- may follow a little junk (some generators prepend a BOM or whitespace); readers allow 1 KB.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) return { ok: false, reason: 'The file is not a PDF (no %PDF- header)' };
  return undefined;
}

/** Sniffs the header, then parses the whole file once (pdf-reader.ts); encrypted PDFs that open without a password are fine. */
export async function checkPdf(bytes: Uint8Array): Promise<PdfVerdict> {
  const sniffed = sniffPdf(bytes);
  if (sniffed) return sniffed;
  try {
    return await (await reader()).readPdf(bytes);
  } catch (e) {
    // pdf-lib throws Error on garbage and TypeError on some truncated files: all mean "corrupt".
    return { ok: false, reason: `The PDF cannot be read: ${(e as Error).message.split('\n')[0].slice(0, 200)}` };
  }
}

export type PdfChecker = (bytes: Uint8Array) => Promise<PdfVerdict>;

/**
 * For a document that only has to be a usable PDF (no e-invoice numbers needed): when its
 * structure alone shows a page tree with pages (pdf-structure.ts, microseconds), that is the
 * verdict; otherwise `full` decides, as for every file before.
 */
export const structureFirst = (full: PdfChecker): PdfChecker => async (bytes) => {
  const pages = sniffPdf(bytes) ? undefined : pageCountByStructure(bytes);
  return pages ? { ok: true, pages, einvoiceNumbers: [] } : full(bytes);
};
