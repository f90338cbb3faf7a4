// The content of XML e-invoices in both syntaxes (test/helpers/xml-einvoices.ts: invoices and
// credit notes as generators write them), the rendition's language and embedded file's name.
import { describe, expect, it } from 'vitest';
import { amountCents, readEinvoice } from '../../src/formats/einvoice.ts';
import { languageOf } from '../../src/formats/einvoice-labels.ts';
import { readEinvoiceModel, readXmlInvoice } from '../../src/formats/einvoice-model.ts';
import { embeddedXmlName, formatMoney } from '../../src/formats/einvoice-render.ts';
import { SAMPLES, sampleXml, totalsOf } from '../helpers/xml-einvoices.ts';

describe('the samples', () => {
  it.each(SAMPLES.map((s) => [s.label, s] as const))('%s: number, totals, lines, parties', (_label, s) => {
    const xml = Buffer.from(sampleXml(s));
    const read = readXmlInvoice(xml);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const totals = totalsOf(s);
    expect(read.model).toMatchObject({ number: s.number, creditNote: Boolean(s.creditNote), syntax: s.syntax, currency: s.currency, issueDate: s.issueDate });
    expect(amountCents(read.model.totals.grand)).toBe(totals.grand);
    expect(amountCents(read.model.totals.due)).toBe(totals.due);
    expect(read.model.lines).toHaveLength(s.lines.length);
    expect(read.model.vat.map((v) => amountCents(v.amount))).toEqual(totals.vat.map((v) => v.amount));
    expect([read.model.seller.name, read.model.buyer.name]).toEqual([s.seller.name, s.buyer.name]);
    // a credit note's amounts, written as credited, are its invoice's negated (docs/matching.md, "Credit notes")
    const sign = s.creditNote ? -1 : 1;
    expect(readEinvoice(xml.toString('utf8'))).toMatchObject({
      kind: 'invoice',
      number: s.number,
      grandCents: sign * totals.grand,
      dueCents: sign * totals.due,
      currency: s.currency,
    });
  });
});

describe('the rendition', () => {
  const model = (i: number) => readEinvoiceModel(sampleXml(SAMPLES[i]))!;

  it("speaks the seller's country's language, or English", () => {
    expect([0, 2, 3, 4, 5].map((i) => languageOf(model(i)))).toEqual(['de', 'nl', 'fr', 'en', 'en']);
    expect(languageOf({ ...model(4), language: 'fr-FR' })).toBe('fr');
  });

  it('names the embedded XML as the standards do', () => {
    expect([0, 1, 2, 3, 4].map((i) => embeddedXmlName(model(i)))).toEqual(['xrechnung.xml', 'xrechnung.xml', 'factur-x.xml', 'factur-x.xml', 'xrechnung.xml']);
  });

  it('writes amounts as the language does', () => {
    expect(formatMoney('1210.5', 'EUR', 'de')).toBe('1.210,50\u00a0€');
    expect(formatMoney('1210.5', 'EUR', 'en')).toBe('€1,210.50');
    expect(formatMoney('3', 'XYZ', 'en')).toBe('XYZ\u00a03.00');
  });

  it('cents from the decimal text: half away from zero, signs, no floats', () => {
    expect([amountCents('336.9'), amountCents('0.005'), amountCents('-1.005'), amountCents('12'), amountCents('1,2'), amountCents('')]).toEqual([
      33690,
      1,
      -101,
      1200,
      undefined,
      undefined,
    ]);
  });
});
