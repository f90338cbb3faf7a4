// Real e-invoice PDFs for tests: a PDF with the XML embedded the way Factur-X, ZUGFeRD and
// XRechnung generators embed it (pdf-lib's attach, AFRelationship Alternative), and PDFs
// encrypted by qpdf, the reference tool.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AFRelationship, PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { makePdf } from './fixtures.ts';

/** Factur-X / ZUGFeRD 2.x / XRechnung CII */
export const ciiXml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">
  <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:factur-x.eu:1p0:basic</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument><ram:ID>${number}</ram:ID><ram:TypeCode>380</ram:TypeCode></rsm:ExchangedDocument>
</rsm:CrossIndustryInvoice>`;

/** ZUGFeRD 1.0 */
export const zugferd1Xml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12">
  <rsm:SpecifiedExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:basic</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:SpecifiedExchangedDocumentContext>
  <rsm:HeaderExchangedDocument><ram:ID>${number}</ram:ID><ram:Name>RECHNUNG</ram:Name></rsm:HeaderExchangedDocument>
</rsm:CrossIndustryDocument>`;

/** UBL 2.1 (XRechnung UBL, Peppol BIS) */
export const ublXml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>
  <cbc:ID>${number}</cbc:ID>
  <cbc:IssueDate>2026-02-01</cbc:IssueDate>
</Invoice>`;

/** UBL 2.1 credit note */
export const ublCreditNoteXml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>
  <cbc:ID>${number}</cbc:ID>
  <cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
</CreditNote>`;

/** ZUGFeRD 1.0's first pre-release: rsm:Invoice with a HeaderExchangedDocument */
export const zugferdPreReleaseXml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:Invoice xmlns:rsm="urn:ferd:Invoice:1.0:basic" xmlns:ram="urn:un:unece:uncefact:data:draft:ReusableAggregateBusinessInformationEntity:12">
  <rsm:HeaderExchangedDocument><ram:ID>${number}</ram:ID><ram:TypeCode>380</ram:TypeCode></rsm:HeaderExchangedDocument>
</rsm:Invoice>`;

/** Order-X (an order in the Factur-X way): not an invoice */
export const orderXXml = (number: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:SCRDMCCBDACIOMessageStructure xmlns:rsm="urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:128">
  <rsm:ExchangedDocument><ram:ID>${number}</ram:ID><ram:TypeCode>220</ram:TypeCode></rsm:ExchangedDocument>
</rsm:SCRDMCCBDACIOMessageStructure>`;

/** UTF-16 (little-endian, with its byte order mark), as some generators write their XML */
export const utf16 = (xml: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le')]);

/**
 * A PDF carrying `files` as embedded files. `kids`: the EmbeddedFiles name tree holds them in a
 * child node (/Kids) instead of its root's /Names, as large generators write it. `afOnly`: the
 * catalog lists them only in its associated files (/AF), with no EmbeddedFiles tree.
 */
export async function einvoicePdf(files: Record<string, string | Uint8Array>, opts: { kids?: boolean; afOnly?: boolean } = {}): Promise<Buffer> {
  const doc = await PDFDocument.load(await makePdf('E-invoice'));
  for (const [name, xml] of Object.entries(files)) {
    await doc.attach(typeof xml === 'string' ? Buffer.from(xml) : xml, name, {
      mimeType: 'text/xml',
      description: 'Factur-X',
      afRelationship: AFRelationship.Alternative,
    });
  }
  const bytes = await doc.save({ useObjectStreams: false });
  if (opts.afOnly) {
    const again = await PDFDocument.load(bytes);
    again.catalog.delete(PDFName.of('Names'));
    return Buffer.from(await again.save({ useObjectStreams: false }));
  }
  if (!opts.kids) return Buffer.from(bytes);
  const again = await PDFDocument.load(bytes);
  const tree = again.catalog.lookup(PDFName.of('Names'), PDFDict).lookup(PDFName.of('EmbeddedFiles'), PDFDict);
  const pairs = tree.lookup(PDFName.of('Names'), PDFArray);
  const limits = again.context.obj([pairs.get(0), pairs.get(pairs.size() - 2)]);
  const leaf = again.context.register(again.context.obj({ Names: pairs, Limits: limits }));
  const middle = again.context.register(again.context.obj({ Kids: [leaf], Limits: limits }));
  tree.delete(PDFName.of('Names'));
  tree.set(PDFName.of('Kids'), again.context.obj([middle]));
  return Buffer.from(await again.save({ useObjectStreams: false }));
}

/** qpdf's options for each revision of the standard security handler */
const REVISIONS = {
  R2: ['40'], // RC4 40-bit
  R3: ['128', '--use-aes=n'], // RC4 128-bit
  R4: ['128', '--use-aes=y'], // AES-128
  R5: ['256', '--force-R5'], // AES-256, Adobe's extension level 3
  R6: ['256'], // AES-256, PDF 2.0
};

/** `pdf` encrypted by qpdf (AES-256 unless told); an empty user password means owner password (permissions) only. */
export function encryptedPdf(pdf: Buffer, userPassword: string, revision: keyof typeof REVISIONS = 'R6'): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enc-pdf-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', [
      '--allow-weak-crypto',
      '--encrypt',
      userPassword,
      'owner-secret',
      ...REVISIONS[revision],
      '--',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'out.pdf'),
    ]);
    return fs.readFileSync(path.join(dir, 'out.pdf'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
