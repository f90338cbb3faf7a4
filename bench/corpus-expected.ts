// What each file of the shared corpora (../shared/corpora, README there) should come to, read
// without the service's code: qpdf writes the PDF with every stream uncompressed (embedded files
// reached by the name tree or only by /AF alike), and regular expressions read each e-invoice
// XML's number (BT-1), document type (BT-3, UBL's CreditNote root), totals (BT-112, else BT-115)
// and so the total its invoice has in the account: a credit note's amounts negated.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface CorpusFile {
  file: string;
  /** the invoice number the file must attach to by its content; null: none (no XML, several, not an invoice) */
  expected: string | null;
  /** einvoice | xml | pdf (no e-invoice) | several-xml | not-pdf (never attachable: TNEF) */
  kind: string;
  /** numbers the account must have besides `expected` (the numbers of a file with several XMLs) */
  otherNumbers: string[];
  /** the invoice's total in the account, two decimals, negative for a credit note */
  total: string | null;
  /** whether the file can be a document at all (by its exact name, when it holds no number) */
  attachable: boolean;
  bytes: Buffer;
  sha256: string;
}

/** The folders of the README with files the HTTP and FTP channels take (the .eml messages are the mail channel's). */
export const CORPUS_FOLDERS = ['pdf-matching/einv', 'pdf-matching/other', 'einvoice-derived', 'einvoice-xml', 'mail-messages/pdfs', 'mail-fixtures'];
const CREDIT_CODES = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);
const ROOTS = /^<(?:[\w.-]+:)?(CrossIndustryInvoice|CrossIndustryDocument|Invoice|CreditNote)[\s>]/;

interface XmlFacts {
  number: string;
  total: string | null;
  credit: boolean;
}

/** One XML e-invoice's facts, or undefined for XML that is no invoice (metadata, an order). */
export function xmlFacts(bytes: Buffer): XmlFacts | undefined {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0x3c && bytes[1] === 0x00);
  const be = (bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0x00 && bytes[1] === 0x3c);
  const xml = (utf16 ? bytes.toString('utf16le') : be ? Buffer.from(bytes).swap16().toString('utf16le') : bytes.toString('utf8')).replace(/^\uFEFF/, '');
  const body = xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '').trimStart();
  const root = ROOTS.exec(body)?.[1];
  if (!root || /:order:/i.test(body.slice(0, 3000))) return undefined;
  const tag = (name: string, within = xml) => new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>\\s*([^<]*?)\\s*<`).exec(within)?.[1];
  const header = /ExchangedDocument>([\s\S]*?)<\/(?:[\w.-]+:)?(?:Header)?ExchangedDocument>/.exec(xml)?.[1];
  const cii = root.startsWith('CrossIndustry') || (root === 'Invoice' && header !== undefined);
  const number = cii ? tag('ID', header ?? '') : tag('ID');
  if (!number) return undefined;
  const type = cii ? tag('TypeCode', header ?? '') : tag(`${root}TypeCode`);
  const amount = cii ? (tag('GrandTotalAmount') ?? tag('DuePayableAmount')) : (tag('TaxInclusiveAmount') ?? tag('PayableAmount'));
  const credit = root === 'CreditNote' || (type !== undefined && CREDIT_CODES.has(type));
  const total = amount && /^-?\d+(\.\d+)?$/.test(amount) ? ((credit ? -1 : 1) * Number(amount)).toFixed(2) : null;
  return { number: number.normalize('NFC'), total: total === '-0.00' ? '0.00' : total, credit };
}

/** Every stream of the PDF, uncompressed by qpdf (a damaged file: what qpdf recovers). */
function pdfStreams(file: string): Buffer[] {
  const out =
    spawnSync('qpdf', ['--qdf', '--object-streams=disable', '--decode-level=all', file, '-'], { maxBuffer: 256 * 1024 * 1024 }).stdout ?? Buffer.alloc(0);
  const text = out.toString('latin1');
  const streams: Buffer[] = [];
  // qpdf writes the keyword on a line of its own (never "octet-stream" at the end of a dictionary line)
  for (const m of text.matchAll(/\nstream\r?\n([\s\S]*?)\r?\nendstream/g)) streams.push(Buffer.from(m[1], 'latin1'));
  return streams;
}

/** What one file should come to. */
function expectation(file: string): Omit<CorpusFile, 'file' | 'bytes' | 'sha256'> {
  const bytes = fs.readFileSync(file);
  if (/\.xml$/i.test(file)) {
    const f = xmlFacts(bytes);
    return { expected: f?.number ?? null, kind: 'xml', otherNumbers: [], total: f?.total ?? null, attachable: Boolean(f) };
  }
  if (/\.tnef$/i.test(file)) return { expected: null, kind: 'not-pdf', otherNumbers: [], total: null, attachable: false };
  const facts = pdfStreams(file)
    .map(xmlFacts)
    .filter((f): f is XmlFacts => f !== undefined);
  const numbers = [...new Set(facts.map((f) => f.number))];
  if (numbers.length > 1) return { expected: null, kind: 'several-xml', otherNumbers: numbers, total: null, attachable: false };
  if (numbers.length === 1) return { expected: numbers[0], kind: 'einvoice', otherNumbers: [], total: facts[0].total, attachable: true };
  return { expected: null, kind: 'pdf', otherNumbers: [], total: null, attachable: true };
}

/** Every file of the corpora's folders, byte-identical copies once. */
export function readSharedCorpora(root: string): CorpusFile[] {
  const seen = new Set<string>();
  const files: CorpusFile[] = [];
  for (const folder of CORPUS_FOLDERS) {
    const dir = path.join(root, folder);
    if (!fs.existsSync(dir)) throw new Error(`the corpus folder ${dir} is missing (../shared/corpora/README.md)`);
    for (const name of fs.readdirSync(dir).sort()) {
      if (/\.(tsv|md)$/i.test(name)) continue;
      const full = path.join(dir, name);
      const bytes = fs.readFileSync(full);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (seen.has(sha256)) continue;
      seen.add(sha256);
      files.push({ file: `${folder}/${name}`, bytes, sha256, ...expectation(full) });
    }
  }
  return files;
}

/** What a library says (pdf-lib, the ZIP and ASN.1 readers, Node): never in a reason a person reads. */
export const LIBRARY_MESSAGE =
  /is not a function|_this\.|Cannot read propert|undefined|TypeError|RangeError|SyntaxError|Error:|Invalid object ref|PDFDict|End of central directory|not valid BER|ENOENT|ECONN/;
