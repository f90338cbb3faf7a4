// The content of an XML e-invoice (EN 16931 in either syntax: UN/CEFACT CII, as Factur-X and
// XRechnung CII write it, and OASIS UBL Invoice / CreditNote), as far as a readable rendition
// needs it (einvoice-render.ts). Pure; fast-xml-parser with entities off, amounts kept as the
// decimal text the XML has. Business terms (BT-n) are named where they are read.
import type { XMLParser } from 'fast-xml-parser';
import type { EinvoiceReading } from '../domain/document-facts.ts';
import { decodeEntities, decodeXml, fastXmlParser, readEinvoice } from './einvoice.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';

interface Party {
  name: string;
  address: string[];
  country?: string;
  vatId?: string;
}

interface Line {
  id: string;
  name: string;
  quantity: string;
  unit?: string;
  unitPrice?: string;
  net: string;
}

interface VatBreakdown {
  category: string;
  rate?: string;
  base: string;
  amount: string;
}

export interface EinvoiceModel {
  syntax: 'cii' | 'ubl';
  /** credit notes (type code 381 and the like, or UBL CreditNote) are titled as such */
  creditNote: boolean;
  number: string;
  typeCode?: string;
  issueDate?: string;
  dueDate?: string;
  currency: string;
  /** the document's own language (BT-? none in EN 16931: CII's LanguageID where a generator writes it) */
  language?: string;
  /** the specification it claims (BT-24), e.g. urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0 */
  specification?: string;
  buyerReference?: string;
  seller: Party;
  buyer: Party;
  lines: Line[];
  vat: VatBreakdown[];
  totals: { lines?: string; net?: string; vat?: string; grand?: string; prepaid?: string; due?: string };
  paymentTerms?: string;
  iban?: string;
  paymentReference?: string;
  notes: string[];
}

// made at the first read (fast-xml-parser is loaded then: einvoice.ts)
let parser: XMLParser | undefined;
const xmlParser = () =>
  (parser ??= new (fastXmlParser().XMLParser)({
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    isArray: (name) =>
      [
        'IncludedSupplyChainTradeLineItem',
        'ApplicableTradeTax',
        'InvoiceLine',
        'CreditNoteLine',
        'TaxSubtotal',
        'IncludedNote',
        'Note',
        'TaxTotalAmount',
        'TaxTotal',
        'PaymentMeans',
        'SpecifiedTradeSettlementPaymentMeans',
        'SpecifiedTradePaymentTerms',
        'PaymentTerms',
        'AddressLine',
      ].includes(name),
  }));

type Node = Record<string, unknown> | undefined;
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const at = (node: unknown, path: string): Node => {
  let n: unknown = node;
  for (const step of path.split('/')) n = n && typeof n === 'object' ? first((n as Record<string, unknown>)[step]) : undefined;
  return n as Node;
};
const all = (node: unknown, path: string): Node[] => {
  const steps = path.split('/');
  const last = steps.pop()!;
  const parent = steps.length ? at(node, steps.join('/')) : (node as Node);
  const v = parent?.[last];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]) as Node[];
};
const text = (node: unknown, path?: string): string | undefined => {
  const n = path ? at(node, path) : first(node);
  const v = typeof n === 'string' ? n : n && typeof n === 'object' ? (n as Record<string, unknown>)['#text'] : undefined;
  return typeof v === 'string' && v.trim() ? decodeEntities(v.trim()).normalize('NFC') : typeof v === 'number' ? String(v) : undefined;
};
const attr = (node: unknown, path: string, name: string): string | undefined => {
  const n = at(node, path);
  return n && typeof n === 'object' && typeof n[`@${name}`] === 'string' ? (n[`@${name}`] as string) : undefined;
};
/** CII's dates: format 102 is YYYYMMDD */
const ciiDate = (node: unknown, path: string) => {
  const d = text(node, path);
  return d && /^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : d;
};
const defined = (xs: (string | undefined)[]) => xs.filter((x): x is string => !!x);

/** Why an XML cannot be read at all, in words: "not well-formed at line 3" (the parser's own message is no person's words). */
function xmlProblem(xml: string): string | undefined {
  const v = fastXmlParser().XMLValidator.validate(xml, { allowBooleanAttributes: true });
  return v === true ? undefined : `it is not well-formed XML (at line ${v.err.line})`;
}

export type InvoiceReading = Extract<EinvoiceReading, { kind: 'invoice' }>;
export type XmlInvoice = { ok: true; model: EinvoiceModel; reading: InvoiceReading } | { ok: false; reason: IntakeReason };

/** What an XML file is, or what is wrong with it, in words for the sender (not well-formed at line N; not an invoice; no number). */
export function readXmlInvoice(bytes: Uint8Array): XmlInvoice {
  const xml = decodeXml(bytes);
  const problem = xmlProblem(xml);
  if (problem) return { ok: false, reason: intakeReason('xml_unreadable', { problem }) };
  const reading = readEinvoice(xml);
  if (!reading) {
    const root = /<(?:[\w.-]+:)?([\w.-]+)[\s>/]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g, ''))?.[1] ?? '?';
    return { ok: false, reason: intakeReason('xml_not_einvoice', { root }) };
  }
  if (reading.kind === 'other') return { ok: false, reason: intakeReason('xml_not_invoice', { what: reading.what }) };
  const model = reading.kind === 'invoice' ? readEinvoiceModel(xml) : undefined;
  if (reading.kind === 'unread' || !model?.number) return { ok: false, reason: intakeReason('xml_no_number') };
  return { ok: true, model, reading };
}

/** The invoice an XML describes, or undefined when its root is no CII or UBL invoice or credit note. */
export function readEinvoiceModel(xml: string): EinvoiceModel | undefined {
  const doc = xmlParser().parse(xml) as Record<string, unknown>;
  if (doc.CrossIndustryInvoice) return cii(doc.CrossIndustryInvoice);
  if (doc.Invoice && at(doc.Invoice, 'ID')) return ubl(doc.Invoice, false);
  if (doc.CreditNote) return ubl(doc.CreditNote, true);
  return undefined;
}

const CREDIT_NOTE_CODES = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);

function cii(root: unknown): EinvoiceModel {
  const trade = at(root, 'SupplyChainTradeTransaction');
  const agreement = at(trade, 'ApplicableHeaderTradeAgreement');
  const settlement = at(trade, 'ApplicableHeaderTradeSettlement');
  const sums = at(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const currency = text(settlement, 'InvoiceCurrencyCode') ?? 'EUR';
  const party = (p: Node): Party => ({
    name: text(p, 'Name') ?? text(p, 'SpecifiedLegalOrganization/TradingBusinessName') ?? '',
    address: defined([
      text(p, 'PostalTradeAddress/LineOne'),
      text(p, 'PostalTradeAddress/LineTwo'),
      text(p, 'PostalTradeAddress/LineThree'),
      defined([text(p, 'PostalTradeAddress/PostcodeCode'), text(p, 'PostalTradeAddress/CityName')]).join(' ') || undefined,
    ]),
    country: text(p, 'PostalTradeAddress/CountryID'),
    vatId: text(p, 'SpecifiedTaxRegistration/ID'),
  });
  const typeCode = text(root, 'ExchangedDocument/TypeCode');
  // the tax total in the invoice's currency (BT-110); a second one may be in the accounting currency
  const taxTotal = all(sums, 'TaxTotalAmount').find((t) => !t?.['@currencyID'] || t['@currencyID'] === currency);
  return {
    syntax: 'cii',
    creditNote: CREDIT_NOTE_CODES.has(typeCode ?? ''),
    number: text(root, 'ExchangedDocument/ID') ?? '',
    typeCode,
    issueDate: ciiDate(root, 'ExchangedDocument/IssueDateTime/DateTimeString'),
    dueDate: ciiDate(settlement, 'SpecifiedTradePaymentTerms/DueDateDateTime/DateTimeString'),
    currency,
    language: text(root, 'ExchangedDocument/LanguageID'),
    specification: text(root, 'ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID'),
    buyerReference: text(agreement, 'BuyerReference'),
    seller: party(at(agreement, 'SellerTradeParty')),
    buyer: party(at(agreement, 'BuyerTradeParty')),
    lines: all(trade, 'IncludedSupplyChainTradeLineItem').map((l) => ({
      id: text(l, 'AssociatedDocumentLineDocument/LineID') ?? '',
      name: text(l, 'SpecifiedTradeProduct/Name') ?? '',
      quantity: text(l, 'SpecifiedLineTradeDelivery/BilledQuantity') ?? '',
      unit: attr(l, 'SpecifiedLineTradeDelivery/BilledQuantity', 'unitCode'),
      unitPrice: text(l, 'SpecifiedLineTradeAgreement/NetPriceProductTradePrice/ChargeAmount'),
      net: text(l, 'SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount') ?? '',
    })),
    vat: all(settlement, 'ApplicableTradeTax').map((t) => ({
      category: text(t, 'CategoryCode') ?? '',
      rate: text(t, 'RateApplicablePercent'),
      base: text(t, 'BasisAmount') ?? '',
      amount: text(t, 'CalculatedAmount') ?? '',
    })),
    totals: {
      lines: text(sums, 'LineTotalAmount'),
      net: text(sums, 'TaxBasisTotalAmount'),
      vat: text(taxTotal),
      grand: text(sums, 'GrandTotalAmount'),
      prepaid: text(sums, 'TotalPrepaidAmount'),
      due: text(sums, 'DuePayableAmount'),
    },
    paymentTerms: text(settlement, 'SpecifiedTradePaymentTerms/Description'),
    iban: text(settlement, 'SpecifiedTradeSettlementPaymentMeans/PayeePartyCreditorFinancialAccount/IBANID'),
    paymentReference: text(settlement, 'PaymentReference'),
    notes: all(at(root, 'ExchangedDocument'), 'IncludedNote')
      .map((n) => text(n, 'Content'))
      .filter((n): n is string => !!n),
  };
}

function ubl(root: unknown, creditNote: boolean): EinvoiceModel {
  const party = (p: Node): Party => ({
    name: text(p, 'PartyName/Name') ?? text(p, 'PartyLegalEntity/RegistrationName') ?? '',
    address: defined([
      text(p, 'PostalAddress/StreetName'),
      text(p, 'PostalAddress/AdditionalStreetName'),
      ...all(at(p, 'PostalAddress'), 'AddressLine').map((l) => text(l, 'Line')),
      defined([text(p, 'PostalAddress/PostalZone'), text(p, 'PostalAddress/CityName')]).join(' ') || undefined,
    ]),
    country: text(p, 'PostalAddress/Country/IdentificationCode'),
    vatId: text(p, 'PartyTaxScheme/CompanyID'),
  });
  const currency = text(root, 'DocumentCurrencyCode') ?? 'EUR';
  const totals = at(root, 'LegalMonetaryTotal');
  const taxTotal = all(root, 'TaxTotal').find((t) => attr(t, 'TaxAmount', 'currencyID') === undefined || attr(t, 'TaxAmount', 'currencyID') === currency);
  const lines = all(root, creditNote ? 'CreditNoteLine' : 'InvoiceLine');
  const quantity = creditNote ? 'CreditedQuantity' : 'InvoicedQuantity';
  const typeCode = text(root, creditNote ? 'CreditNoteTypeCode' : 'InvoiceTypeCode');
  return {
    syntax: 'ubl',
    creditNote: creditNote || CREDIT_NOTE_CODES.has(typeCode ?? ''),
    number: text(root, 'ID') ?? '',
    typeCode,
    issueDate: text(root, 'IssueDate'),
    dueDate: text(root, 'DueDate') ?? text(root, 'PaymentMeans/PaymentDueDate'),
    currency,
    specification: text(root, 'CustomizationID'),
    buyerReference: text(root, 'BuyerReference'),
    seller: party(at(root, 'AccountingSupplierParty/Party')),
    buyer: party(at(root, 'AccountingCustomerParty/Party')),
    lines: lines.map((l) => ({
      id: text(l, 'ID') ?? '',
      name: text(l, 'Item/Name') ?? '',
      quantity: text(l, quantity) ?? '',
      unit: attr(l, quantity, 'unitCode'),
      unitPrice: text(l, 'Price/PriceAmount'),
      net: text(l, 'LineExtensionAmount') ?? '',
    })),
    vat: all(taxTotal, 'TaxSubtotal').map((s) => ({
      category: text(s, 'TaxCategory/ID') ?? '',
      rate: text(s, 'TaxCategory/Percent'),
      base: text(s, 'TaxableAmount') ?? '',
      amount: text(s, 'TaxAmount') ?? '',
    })),
    totals: {
      lines: text(totals, 'LineExtensionAmount'),
      net: text(totals, 'TaxExclusiveAmount'),
      vat: text(taxTotal, 'TaxAmount'),
      grand: text(totals, 'TaxInclusiveAmount'),
      prepaid: text(totals, 'PrepaidAmount'),
      due: text(totals, 'PayableAmount'),
    },
    paymentTerms: text(root, 'PaymentTerms/Note'),
    iban: text(root, 'PaymentMeans/PayeeFinancialAccount/ID'),
    paymentReference: text(root, 'PaymentMeans/PaymentID'),
    notes: all(root, 'Note')
      .map((n) => text(n))
      .filter((n): n is string => !!n),
  };
}
