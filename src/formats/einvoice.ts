// The invoice number an e-invoice carries: the XML embedded in a PDF (Factur-X, ZUGFeRD,
// XRechnung) or sent beside it. Pure; fast-xml-parser with entity processing off, so a DOCTYPE
// cannot expand anything (billion laughs) and numbers stay text ("0117" is not 117).
import { createRequire } from 'node:module';
import type * as FastXmlParser from 'fast-xml-parser';
import type { CreditNoteFacts, EinvoiceReading, EinvoiceTotals } from '../domain/document-facts.ts';

// fast-xml-parser is loaded by the first XML read, not by every start (docs/operations.md, "The
// embedded default, measured"); required, so readers stay synchronous: its CommonJS build, which
// its package exports for `require`.
const require = createRequire(import.meta.url);
let library: typeof FastXmlParser | undefined;
/** fast-xml-parser, loaded at the first call */
export const fastXmlParser = () => (library ??= require('fast-xml-parser') as typeof FastXmlParser);

let parser: FastXmlParser.XMLParser | undefined;
const xmlParser = () =>
  (parser ??= new (fastXmlParser().XMLParser)({
    processEntities: false,
    htmlEntities: false,
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // prefixes differ between generators (rsm:, ram:, cbc: or none): the element names decide
    removeNSPrefix: true,
    parseTagValue: false,
    trimValues: true,
  }));

const CII_SUMS = ['SupplyChainTradeTransaction', 'ApplicableHeaderTradeSettlement', 'SpecifiedTradeSettlementHeaderMonetarySummation'];
const ZF1_SUMS = ['SpecifiedSupplyChainTradeTransaction', 'ApplicableSupplyChainTradeSettlement', 'SpecifiedTradeSettlementMonetarySummation'];

/** Each invoice format: its root, where it keeps the document's number, type code, totals and currency (namespace prefixes removed). */
const FORMATS: {
  root: string;
  id: string[];
  typeCode?: string[];
  grand?: string[];
  due?: string[];
  currency?: string[];
  profile?: string[];
  corrects?: string[][];
  creditNote?: true;
}[] = [
  // Factur-X, ZUGFeRD 2.x, XRechnung CII
  {
    root: 'CrossIndustryInvoice',
    id: ['ExchangedDocument', 'ID'],
    typeCode: ['ExchangedDocument', 'TypeCode'],
    profile: ['ExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'],
    grand: [...CII_SUMS, 'GrandTotalAmount'],
    due: [...CII_SUMS, 'DuePayableAmount'],
    currency: [...CII_SUMS.slice(0, 2), 'InvoiceCurrencyCode'],
    corrects: [[...CII_SUMS.slice(0, 2), 'InvoiceReferencedDocument'], ['IssuerAssignedID']],
  },
  // ZUGFeRD 1.0
  {
    root: 'CrossIndustryDocument',
    id: ['HeaderExchangedDocument', 'ID'],
    typeCode: ['HeaderExchangedDocument', 'TypeCode'],
    profile: ['SpecifiedExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID'],
    grand: [...ZF1_SUMS, 'GrandTotalAmount'],
    due: [...ZF1_SUMS, 'DuePayableAmount'],
    currency: [...ZF1_SUMS.slice(0, 2), 'InvoiceCurrencyCode'],
    corrects: [[...ZF1_SUMS.slice(0, 2), 'InvoiceReferencedDocument'], ['ID']],
  },
  // ZUGFeRD 1.0's first pre-release (rsm:Invoice)
  { root: 'Invoice', id: ['HeaderExchangedDocument', 'ID'], typeCode: ['HeaderExchangedDocument', 'TypeCode'] },
  // UBL (XRechnung UBL, Peppol BIS)
  {
    root: 'Invoice',
    id: ['ID'],
    typeCode: ['InvoiceTypeCode'],
    grand: ['LegalMonetaryTotal', 'TaxInclusiveAmount'],
    due: ['LegalMonetaryTotal', 'PayableAmount'],
    currency: ['DocumentCurrencyCode'],
    corrects: [['BillingReference'], ['InvoiceDocumentReference', 'ID']],
  },
  // UBL credit note: a credit note whatever its type code says
  {
    root: 'CreditNote',
    id: ['ID'],
    typeCode: ['CreditNoteTypeCode'],
    grand: ['LegalMonetaryTotal', 'TaxInclusiveAmount'],
    due: ['LegalMonetaryTotal', 'PayableAmount'],
    currency: ['DocumentCurrencyCode'],
    corrects: [['BillingReference'], ['InvoiceDocumentReference', 'ID']],
    creditNote: true,
  },
];

/**
 * Credit notes' type codes (UNTDID 1001, those EN 16931 and XRechnung list): their amounts are
 * written from the credit note's side (233.47 credited), so the invoice they are in the account
 * has their negation (-233.47). A corrected invoice (384) and an invoice (380) are written as
 * invoices: a negative amount there is already the invoice's (-8.79).
 */
const CREDIT_NOTE_TYPE_CODES = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);

/** A decimal amount as the XML writes it ("1210.5", "-3.00") in cents, half away from zero; undefined when it is none. */
export function amountCents(value: string | undefined): number | undefined {
  const m = value && /^\s*([+-]?)(\d+)(?:\.(\d+))?\s*$/.exec(value);
  if (!m) return undefined;
  const fraction = (m[3] ?? '').padEnd(3, '0');
  const cents = Number(m[2]) * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
  return m[1] === '-' ? -cents : cents;
}

/** Documents that travel the same way but are not invoices: never evidence of one. */
const NOT_INVOICES: Record<string, string> = {
  SCRDMCCBDACIOMessageStructure: 'an order (Order-X)',
  CrossIndustryOrder: 'an order',
  Order: 'an order',
  OrderResponse: 'an order response',
  OrderChange: 'an order change',
  DespatchAdvice: 'a despatch advice',
  CrossIndustryDespatchAdvice: 'a despatch advice',
  ReceiptAdvice: 'a receipt advice',
  ApplicationResponse: 'an application response',
  Catalogue: 'a catalogue',
  Quotation: 'a quotation',
};

/** Document type codes (UNTDID 1001) that EN 16931 allows for invoices and credit notes (BT-3). */
const INVOICE_TYPE_CODES = new Set(
  '71 80 81 82 83 84 102 130 202 203 204 211 218 219 261 262 295 296 308 325 326 331 380 381 382 383 384 385 386 387 388 389 390 393 394 395 396 420 456 457 458 527 532 553 575 623 633 751 780 817 870 875 876 877 935'.split(
    ' ',
  ),
);

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/**
 * XML's five predefined entities and character references, decoded here: the parser's entity
 * processing stays off, so that a DOCTYPE's own entities never expand (they stay as written).
 */
export const decodeEntities = (s: string): string =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    if (e[0] !== '#') return PREDEFINED[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });

const text = (v: unknown): string | undefined => {
  const first = Array.isArray(v) ? v[0] : v;
  if (typeof first === 'string') return decodeEntities(first);
  if (first && typeof first === 'object' && typeof (first as Record<string, unknown>)['#text'] === 'string')
    return decodeEntities((first as Record<string, string>)['#text']);
  return undefined;
};

/** Every node at the end of `path`, each step's arrays followed (a credit note may correct several invoices). */
const every = (node: unknown, path: string[]): unknown[] =>
  path.reduce<unknown[]>(
    (nodes, step) => nodes.flatMap((n) => (n && typeof n === 'object' && !Array.isArray(n) ? [(n as Record<string, unknown>)[step]].flat() : [])),
    [node].flat(),
  );

const at = (node: unknown, path: string[]): unknown => {
  for (const step of path) node = node && typeof node === 'object' ? (Array.isArray(node) ? node[0] : node)[step as keyof typeof node] : undefined;
  return node;
};

/** The XML's text in the encoding it says it has: a BOM, UTF-16 without one, or the declaration's encoding (UTF-8 otherwise). */
export function decodeXml(bytes: Uint8Array): string {
  const [a, b] = [bytes[0], bytes[1]];
  if (a === 0xff && b === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (a === 0xfe && b === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (a === 0x3c && b === 0x00) return new TextDecoder('utf-16le').decode(bytes);
  if (a === 0x00 && b === 0x3c) return new TextDecoder('utf-16be').decode(bytes);
  const declared = /^(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(Buffer.from(bytes.subarray(0, 200)).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared && !/^utf-?8$/i.test(declared) ? declared : 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes); // an encoding label nobody knows
  }
}

const EINVOICE_ROOT = /<(?:[\w.-]+:)?(?:CrossIndustryInvoice|CrossIndustryDocument|Invoice|CreditNote)[\s>/]/;

/** An XML e-invoice by its first bytes (the root element of CII, ZUGFeRD 1.0 or UBL): what a mail part must be to be imported as one. */
export const looksLikeEinvoiceXml = (start: Uint8Array): boolean => {
  const text = decodeXml(start.subarray(0, 4096))
    .replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '')
    .trimStart();
  return text.startsWith('<') && EINVOICE_ROOT.test(text.slice(0, 512));
};

/**
 * What the XML is: the invoice number it names (NFC), a document that is no invoice, or an
 * invoice (or something that fails to parse) whose number cannot be read. Undefined for XML that
 * is no business document we know (a generator's metadata, say).
 */
export function readEinvoice(xml: Uint8Array | string): EinvoiceReading | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = xmlParser().parse(typeof xml === 'string' ? xml : decodeXml(xml));
  } catch {
    return { kind: 'unread' };
  }
  const roots = Object.keys(doc ?? {});
  for (const root of roots) if (NOT_INVOICES[root]) return { kind: 'other', what: NOT_INVOICES[root] };
  let known = false;
  for (const f of FORMATS) {
    if (!(f.root in doc)) continue;
    known = true;
    const body = doc[f.root];
    const id = text(at(body, f.id))?.trim();
    if (!id) continue;
    const typeCode = f.typeCode && text(at(body, f.typeCode))?.trim();
    if (typeCode && !INVOICE_TYPE_CODES.has(typeCode)) return { kind: 'other', what: `a document of type ${typeCode}, not an invoice` };
    // ZUGFeRD 1.0 also defined order profiles in the invoice's layout (urn:ferd:CrossIndustryDocument:order:1p0:...)
    const profile = f.profile && text(at(body, f.profile))?.trim();
    if (profile && /:order:/i.test(profile)) return { kind: 'other', what: `an order (profile ${profile})` };
    const creditNote = f.creditNote || (typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode));
    const amount = (path?: string[]) => {
      const cents = path ? amountCents(text(at(body, path))) : undefined;
      return cents !== undefined && creditNote ? 0 - cents : cents;
    };
    const totals: EinvoiceTotals = { grandCents: amount(f.grand), dueCents: amount(f.due), currency: f.currency && text(at(body, f.currency))?.trim() };
    const corrects = f.corrects ? every(body, f.corrects[0]).flatMap((ref) => every(ref, f.corrects![1]).map((n) => text(n)?.trim().normalize('NFC'))) : [];
    const facts: CreditNoteFacts = {
      ...(creditNote ? { creditNote: true } : {}),
      ...(corrects.some(Boolean) ? { corrects: [...new Set(corrects.filter((n): n is string => Boolean(n)))] } : {}),
    };
    return { kind: 'invoice', number: id.normalize('NFC'), ...Object.fromEntries(Object.entries(totals).filter(([, v]) => v !== undefined)), ...facts };
  }
  return known ? { kind: 'unread' } : undefined;
}
