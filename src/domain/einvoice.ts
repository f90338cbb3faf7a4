// The invoice number an e-invoice carries: the XML embedded in a PDF (Factur-X, ZUGFeRD,
// XRechnung) or sent beside it. Pure; fast-xml-parser with entity processing off, so a DOCTYPE
// cannot expand anything (billion laughs) and numbers stay text ("0117" is not 117).
import { XMLParser } from 'fast-xml-parser';

const parser = new XMLParser({
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // prefixes differ between generators (rsm:, ram:, cbc: or none): the element names decide
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
});

/** Where each format keeps the document's own number (namespace prefixes removed). */
const PATHS = [
  ['CrossIndustryInvoice', 'ExchangedDocument', 'ID'], // Factur-X, ZUGFeRD 2.x, XRechnung CII
  ['CrossIndustryDocument', 'HeaderExchangedDocument', 'ID'], // ZUGFeRD 1.0
  ['Invoice', 'ID'], // UBL (XRechnung UBL, Peppol)
];

const text = (v: unknown): string | undefined => {
  const first = Array.isArray(v) ? v[0] : v;
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && typeof (first as Record<string, unknown>)['#text'] === 'string') return (first as Record<string, string>)['#text'];
  return undefined;
};

/** The invoice number the XML names, or undefined when it is no e-invoice we know or cannot be read. */
export function einvoiceNumber(xml: string): string | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml);
  } catch {
    return undefined;
  }
  for (const path of PATHS) {
    let node: unknown = doc;
    for (const step of path) node = node && typeof node === 'object' ? (Array.isArray(node) ? node[0] : node)[step as keyof typeof node] : undefined;
    const id = text(node)?.trim();
    if (id) return id.normalize('NFC');
  }
  return undefined;
}
