// The one parse of a received PDF (in a PDF check thread): is it usable, how many pages, does it
// open without a password, and which invoice numbers do its embedded e-invoices name. pdf-lib
// is loaded with this module, which pdf.ts imports only when a check runs. Pure.
import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFString,
  type PDFObject,
} from 'pdf-lib';
import type { EinvoiceReading, PdfVerdict } from '../domain/document-facts.ts';
import { readEinvoice } from './einvoice.ts';
import { opensWithoutPassword, type StandardSecurity } from './pdf-encryption.ts';
import { intakeReason } from '../domain/intake-reasons.ts';

/** embedded files looked at, and name-tree depth: a hostile tree costs little */
const MAX_EMBEDDED = 32;
const MAX_DEPTH = 16;

const name = (n: string) => PDFName.of(n);
const isText = (o: PDFObject | undefined): o is PDFString | PDFHexString => o instanceof PDFString || o instanceof PDFHexString;
const num = (o: PDFObject | undefined, fallback: number) => (o instanceof PDFNumber ? o.asNumber() : fallback);

export async function readPdf(bytes: Uint8Array): Promise<PdfVerdict> {
  // parseSpeed Infinity: pdf-lib by default yields to a timer every 100 objects, which in a
  // thread of its own only adds 1 ms waits to a file with many objects
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false, parseSpeed: Infinity });
  if (doc.isEncrypted) {
    const security = securityOf(doc);
    if (!security || !opensWithoutPassword(security)) return { ok: false, reason: intakeReason('pdf_encrypted') };
    // Owner password only: fine. Its objects stay encrypted for pdf-lib, so the page tree may be
    // unreadable (object streams) and embedded files are not read.
    let pages: number | null = null;
    try {
      pages = doc.getPageCount();
    } catch {
      // the page tree sits in an encrypted object stream
    }
    return { ok: true, pages, einvoices: [] };
  }
  const pages = doc.getPageCount();
  if (pages < 1) return { ok: false, reason: intakeReason('pdf_no_pages') };
  return { ok: true, pages, einvoices: embeddedEinvoices(doc) };
}

function securityOf(doc: PDFDocument): StandardSecurity | undefined {
  const { Encrypt, ID } = doc.context.trailerInfo;
  const dict = Encrypt && doc.context.lookup(Encrypt);
  const ids = ID && doc.context.lookup(ID);
  if (!(dict instanceof PDFDict)) return undefined;
  const [o, u, filter] = [dict.lookup(name('O')), dict.lookup(name('U')), dict.lookup(name('Filter'))];
  if (!isText(o) || !isText(u) || !(filter instanceof PDFName)) return undefined;
  const id0 = ids instanceof PDFArray ? ids.lookup(0) : undefined;
  const metadata = dict.lookup(name('EncryptMetadata'));
  return {
    filter: filter.decodeText(),
    r: num(dict.lookup(name('R')), 2),
    length: num(dict.lookup(name('Length')), 40),
    o: o.asBytes(),
    u: u.asBytes(),
    p: num(dict.lookup(name('P')), 0),
    encryptMetadata: !(metadata instanceof PDFBool) || metadata.asBoolean(),
    id0: isText(id0) ? id0.asBytes() : new Uint8Array(0),
  };
}

/**
 * Reads every embedded XML file: those of the EmbeddedFiles name tree (/Names pairs and /Kids)
 * and those the catalog lists only in its associated files (/AF, PDF/A-3), each file once.
 */
function embeddedEinvoices(doc: PDFDocument): EinvoiceReading[] {
  const found: EinvoiceReading[] = [];
  const seen = new Set<PDFObject>();
  const read = (key: PDFObject | undefined, spec: PDFObject | undefined) => {
    if (!spec || seen.has(spec) || seen.size >= MAX_EMBEDDED) return;
    seen.add(spec);
    const reading = xmlReading(key, spec);
    if (reading) found.push(reading);
  };
  const walk = (node: PDFObject | undefined, depth: number) => {
    if (!(node instanceof PDFDict) || seen.has(node) || depth > MAX_DEPTH) return;
    seen.add(node);
    const pairs = node.lookup(name('Names'));
    for (let i = 0; pairs instanceof PDFArray && i + 1 < pairs.size(); i += 2) read(pairs.lookup(i), pairs.lookup(i + 1));
    const kids = node.lookup(name('Kids'));
    for (let i = 0; kids instanceof PDFArray && i < kids.size(); i++) walk(kids.lookup(i), depth + 1);
  };
  try {
    const names = doc.catalog.lookup(name('Names'));
    walk(names instanceof PDFDict ? names.lookup(name('EmbeddedFiles')) : undefined, 0);
    const af = doc.catalog.lookup(name('AF'));
    for (let i = 0; af instanceof PDFArray && i < af.size(); i++) read(undefined, af.lookup(i));
  } catch {
    // a broken attachment does not make the PDF unusable; it only names no invoice
  }
  return found;
}

function xmlReading(key: PDFObject | undefined, spec: PDFObject | undefined): EinvoiceReading | undefined {
  if (!(spec instanceof PDFDict)) return undefined;
  const label = [spec.lookup(name('UF')), spec.lookup(name('F')), key].find(isText)?.decodeText() ?? '';
  const ef = spec.lookup(name('EF'));
  const stream = ef instanceof PDFDict ? (ef.lookup(name('UF')) ?? ef.lookup(name('F'))) : undefined;
  if (!(stream instanceof PDFRawStream)) return undefined;
  if (!/\.xml$/i.test(label.trim())) return undefined;
  return readEinvoice(decodePDFRawStream(stream).decode());
}
