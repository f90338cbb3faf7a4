// What makes a file an acceptable invoice document. Pure: the caller decides where it runs
// (the intake workers run it in a worker thread so 5 MB files never stall the event loop).
// pdf-lib is loaded by the first check, so only the threads that run checks carry it (not the
// main thread of every process, which only sniffs)
import { MAX_DOCUMENT_BYTES, type PdfChecker, type PdfVerdict } from '../domain/document-facts.ts';
import { readXmlInvoice } from './einvoice-model.ts';
import { intakeReason } from '../domain/intake-reasons.ts';
import { looksLikeXml, openPdf } from './pdf-container.ts';
import { readStructure } from './pdf-structure.ts';

const reader = () => import('./pdf-reader.ts');

/** The cheap refusals, decided when a file arrives: empty, too large, no PDF in it (pdf-container.ts), an XML that is no e-invoice. */
export function sniffPdf(bytes: Uint8Array): PdfVerdict | undefined {
  if (bytes.length > MAX_DOCUMENT_BYTES) return { ok: false, reason: intakeReason('file_too_large', { max: MAX_DOCUMENT_BYTES }) };
  if (looksLikeXml(bytes)) {
    const xml = readXmlInvoice(bytes);
    return xml.ok ? undefined : xml;
  }
  const opened = openPdf(bytes);
  return opened.ok ? undefined : opened;
}

/** A PDF from its first byte (as openPdf leaves it) and not too large, or why not. */
export function headerVerdict(bytes: Uint8Array): PdfVerdict | undefined {
  const sniffed = sniffPdf(bytes);
  if (sniffed) return sniffed;
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(5, bytes.length)).toString('latin1') === '%PDF-'
    ? undefined
    : { ok: false, reason: intakeReason('file_not_pdf') };
}

/** Checks the header, then parses the whole file once (pdf-reader.ts); encrypted PDFs that open without a password are fine. */
export async function checkPdf(bytes: Uint8Array): Promise<PdfVerdict> {
  const refused = headerVerdict(bytes);
  if (refused) return refused;
  try {
    return await (await reader()).readPdf(bytes);
  } catch {
    // pdf-lib throws Error on garbage and TypeError on some truncated files
    // ("_this.catalog.Pages(...).traverse is not a function"): all mean damaged, in words a person can act on
    return damagedPdf();
  }
}

/**
 * The verdict on a PDF that cannot be parsed: damaged (the library's message is no person's words).
 * @public pdf-check-thread.mjs imports it by URL
 */
export const damagedPdf = (): PdfVerdict => ({ ok: false, reason: intakeReason('pdf_damaged') });

/**
 * When the structure alone shows a page tree with pages and a catalog that leads to no embedded
 * XML file (no /Names nor /AF, or only attachments plainly named otherwise: pdf-structure.ts,
 * microseconds), that is the verdict, with no e-invoice; otherwise `full` decides (the parse in a
 * thread, which reads the embedded XML).
 */
export const structureFirst =
  (full: PdfChecker): PdfChecker =>
  async (bytes) => {
    const structure = headerVerdict(bytes) ? undefined : readStructure(bytes);
    return structure && !structure.mayHoldXml ? { ok: true, pages: structure.pages, einvoices: [] } : full(bytes);
  };
