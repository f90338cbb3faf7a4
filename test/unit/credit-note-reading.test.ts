// A credit note's type and sign (docs/matching.md, "Credit notes"): the document type code (BT-3)
// of CII and ZUGFeRD 1.0, UBL's CreditNote root; the amounts as the invoice in the account has them;
// the invoice it corrects (BT-25), read but never its number.
import { describe, expect, it } from 'vitest';
import { readEinvoice } from '../../src/formats/einvoice.ts';

const cii = (type: string, grand: string, due = grand, preceding: string[] = []) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">
  <rsm:ExchangedDocument><ram:ID>CN-7</ram:ID><ram:TypeCode>${type}</ram:TypeCode></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
    <ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:GrandTotalAmount>${grand}</ram:GrandTotalAmount><ram:DuePayableAmount>${due}</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    ${preceding.map((n) => `<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>${n}</ram:IssuerAssignedID></ram:InvoiceReferencedDocument>`).join('')}
  </ram:ApplicableHeaderTradeSettlement></rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;

const zf1 = (type: string, grand: string) => `<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0" xmlns:ram="x">
  <rsm:HeaderExchangedDocument><ram:ID>CN-7</ram:ID><ram:TypeCode>${type}</ram:TypeCode></rsm:HeaderExchangedDocument>
  <rsm:SpecifiedSupplyChainTradeTransaction><ram:ApplicableSupplyChainTradeSettlement><ram:InvoiceReferencedDocument><ram:ID>RE-1</ram:ID></ram:InvoiceReferencedDocument>
    <ram:SpecifiedTradeSettlementMonetarySummation><ram:GrandTotalAmount>${grand}</ram:GrandTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>
  </ram:ApplicableSupplyChainTradeSettlement></rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>`;

const ubl = (
  root: 'Invoice' | 'CreditNote',
  type: string,
  payable: string,
  preceding: string[] = [],
) => `<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2" xmlns:cbc="c" xmlns:cac="a">
  <cbc:ID>CN-7</cbc:ID><cbc:${root}TypeCode>${type}</cbc:${root}TypeCode>
  ${preceding.map((n) => `<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${n}</cbc:ID></cac:InvoiceDocumentReference></cac:BillingReference>`).join('')}
  <cac:LegalMonetaryTotal><cbc:TaxInclusiveAmount currencyID="EUR">${payable}</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">${payable}</cbc:PayableAmount></cac:LegalMonetaryTotal>
</${root}>`;

describe("a credit note's type and sign", () => {
  it.each([
    // what the document says                         type code    amount   the invoice's total   credit note
    ['CII invoice', cii('380', '233.47'), 23347, false],
    ['CII credit note (381) written as credited', cii('381', '233.47'), -23347, true],
    ['CII credit note (381) of a negative amount: a charge', cii('381', '-10.00'), 1000, true],
    ['CII invoice of a negative amount (380, as Factur-X samples write an avoir)', cii('380', '-233.47'), -23347, false],
    ['CII corrected invoice (384), signed as an invoice', cii('384', '-8.79'), -879, false],
    ['CII credit note for financial adjustments (261)', cii('261', '5.00'), -500, true],
    ['CII self-billed credit note (261 kin: 396)', cii('396', '5.00'), -500, true],
    ['ZUGFeRD 1.0 credit note (381)', zf1('381', '19.99'), -1999, true],
    ['ZUGFeRD 1.0 invoice (380)', zf1('380', '19.99'), 1999, false],
    ['UBL Invoice', ubl('Invoice', '380', '100.11'), 10011, false],
    ['UBL CreditNote (381): positive amounts are credited', ubl('CreditNote', '381', '100.11'), -10011, true],
    ['UBL CreditNote whatever its type code (380 by mistake)', ubl('CreditNote', '380', '100.11'), -10011, true],
    ['UBL Invoice with a credit note type code (381)', ubl('Invoice', '381', '100.11'), -10011, true],
  ])('%s', (_what, xml, cents, creditNote) => {
    const read = readEinvoice(xml);
    expect(read).toMatchObject({ kind: 'invoice', number: 'CN-7', grandCents: cents });
    expect(read && 'creditNote' in read && read.creditNote === true).toBe(creditNote);
  });

  it('a credit note of 0.00 is 0, never -0', () => {
    expect(readEinvoice(cii('381', '0.00'))).toMatchObject({ grandCents: 0 });
    expect(Object.is((readEinvoice(cii('381', '0.00')) as { grandCents: number }).grandCents, -0)).toBe(false);
  });

  it('reads the invoices a credit note corrects (BT-25) beside its own number', () => {
    expect(readEinvoice(cii('381', '10.00', '10.00', ['RE-1', 'RE-2', 'RE-1']))).toMatchObject({ number: 'CN-7', corrects: ['RE-1', 'RE-2'] });
    expect(readEinvoice(zf1('381', '10.00'))).toMatchObject({ number: 'CN-7', corrects: ['RE-1'] });
    expect(readEinvoice(ubl('CreditNote', '381', '10.00', ['INV-9']))).toMatchObject({ number: 'CN-7', corrects: ['INV-9'] });
    expect(readEinvoice(cii('380', '10.00'))).not.toHaveProperty('corrects');
  });
});
