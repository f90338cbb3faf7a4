// What an embedded XML says (docs/matching.md, "The e-invoice inside the PDF"): each layout's
// number, encodings, documents that are no invoice, and entities that must not expand.
import { describe, expect, it } from 'vitest';
import { decodeXml, readEinvoice } from '../../src/formats/einvoice.ts';
import { ciiXml, orderXXml, ublCreditNoteXml, ublXml, utf16, zugferd1Xml, zugferdPreReleaseXml } from '../helpers/einvoice.ts';

describe('the invoice number of each layout', () => {
  it.each([
    ['CII (Factur-X, ZUGFeRD 2.x, XRechnung)', ciiXml('2026-0117'), '2026-0117'],
    ['ZUGFeRD 1.0', zugferd1Xml('0042'), '0042'],
    ["ZUGFeRD 1.0's pre-release rsm:Invoice", zugferdPreReleaseXml('ZP-7'), 'ZP-7'],
    ['UBL invoice', ublXml('INV 7'), 'INV 7'],
  ])('%s', (_layout, xml, number) => expect(readEinvoice(xml)).toEqual({ kind: 'invoice', number }));

  it('UBL credit note', () => expect(readEinvoice(ublCreditNoteXml('GS-1'))).toEqual({ kind: 'invoice', number: 'GS-1', creditNote: true }));

  it('a number in NFD comes out in NFC', () => {
    expect(readEinvoice(ciiXml('Ju\u0308rgen-1'))).toEqual({ kind: 'invoice', number: 'J\u00fcrgen-1' });
  });
});

describe('encodings', () => {
  it('UTF-16 with and without a byte order mark, big and little endian', () => {
    const le = utf16(ciiXml('U16-1'));
    expect(readEinvoice(le)).toEqual({ kind: 'invoice', number: 'U16-1' });
    expect(readEinvoice(le.subarray(2))).toEqual({ kind: 'invoice', number: 'U16-1' });
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(readEinvoice(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toEqual({ kind: 'invoice', number: 'U16-1' });
  });

  it('the encoding its declaration names (ISO-8859-1), else UTF-8 (a BOM too)', () => {
    const latin1 = Buffer.from(ciiXml('M\u00fcller-1').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    expect(readEinvoice(latin1)).toEqual({ kind: 'invoice', number: 'M\u00fcller-1' });
    expect(decodeXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<a>\u00fc</a>')]))).toBe('<a>\u00fc</a>');
  });
});

describe('documents that are no invoice', () => {
  it.each([
    ['Order-X', orderXXml('ORD-1'), 'an order (Order-X)'],
    ['a UBL order', '<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"><ID>1</ID></Order>', 'an order'],
    ['a UBL despatch advice', '<DespatchAdvice><ID>1</ID></DespatchAdvice>', 'a despatch advice'],
    [
      'a ZUGFeRD 1.0 order',
      zugferd1Xml('RE-20170509/505').replace('urn:ferd:CrossIndustryDocument:invoice:1p0:basic', 'urn:ferd:CrossIndustryDocument:order:1p0:extended'),
      'an order (profile urn:ferd:CrossIndustryDocument:order:1p0:extended)',
    ],
    [
      'a CII document of type 220 (an order)',
      ciiXml('X-1').replace('<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>220</ram:TypeCode>'),
      'a document of type 220, not an invoice',
    ],
  ])('%s is no evidence', (_what, xml, what) => expect(readEinvoice(xml)).toEqual({ kind: 'other', what }));

  it('an XML that is no business document is nothing; an invoice without a readable number is unread', () => {
    expect(readEinvoice('<metadata><title>x</title></metadata>')).toBeUndefined();
    expect(readEinvoice(ciiXml(''))).toEqual({ kind: 'unread' });
    expect(readEinvoice('<rsm:CrossIndustryInvoice><rsm:ExchangedDocument>')).toEqual({ kind: 'unread' });
  });
});

describe('entities', () => {
  it("decodes XML's own entities and character references", () => {
    expect(readEinvoice(ciiXml('M&amp;S-&#x31;&#50;&lt;3'))).toEqual({ kind: 'invoice', number: 'M&S-12<3' });
  });

  it('expands none: a DOCTYPE cannot smuggle a number in or blow up (billion laughs)', () => {
    const smuggled = '<?xml version="1.0"?><!DOCTYPE i [<!ENTITY n "2026-0117">]><Invoice><ID>&n;</ID></Invoice>';
    expect(readEinvoice(smuggled)).toEqual({ kind: 'invoice', number: '&n;' });
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${'&a;'.repeat(10)}">`).join('')}]><Invoice><ID>&bbbbbbbbb;</ID></Invoice>`;
    expect(readEinvoice(laughs)).toEqual({ kind: 'invoice', number: '&bbbbbbbbb;' });
  });
});
