// The content of real XML e-invoices (test/fixtures/xml-einvoices, numbers and totals read by
// xmllint into manifest.json) and the rendition's language and embedded file's name.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { amountCents, readEinvoice } from '../../src/domain/einvoice.ts';
import { languageOf } from '../../src/domain/einvoice-labels.ts';
import { readEinvoiceModel, readXmlInvoice } from '../../src/domain/einvoice-model.ts';
import { embeddedXmlName, formatMoney } from '../../src/domain/einvoice-render.ts';

const DIR = path.join(import.meta.dirname, '../fixtures/xml-einvoices');
const SAMPLES: { file: string; syntax: string; number: string; grandTotal: string; dueAmount: string }[] = JSON.parse(fs.readFileSync(path.join(DIR, 'manifest.json'), 'utf8'));

describe('public samples', () => {
  it.each(SAMPLES.map((s) => [s.file, s] as const))('%s: number, totals, lines', (file, s) => {
    const xml = fs.readFileSync(path.join(DIR, file));
    const read = readXmlInvoice(xml);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.model.number).toBe(s.number);
    expect(read.model.creditNote).toBe(s.syntax === 'ubl-creditnote');
    expect(read.model.syntax).toBe(s.syntax.startsWith('ubl') ? 'ubl' : 'cii');
    expect(amountCents(read.model.totals.grand)).toBe(amountCents(s.grandTotal));
    expect(amountCents(read.model.totals.due)).toBe(amountCents(s.dueAmount));
    expect(read.model.lines.length).toBeGreaterThan(0);
    expect(read.model.seller.name).not.toBe('');
    expect(readEinvoice(xml.toString('utf8'))).toMatchObject({ kind: 'invoice', number: s.number, grandCents: amountCents(s.grandTotal), dueCents: amountCents(s.dueAmount) });
  });
});

describe('the rendition', () => {
  const model = (file: string) => readEinvoiceModel(fs.readFileSync(path.join(DIR, file), 'utf8'))!;

  it("speaks the seller's country's language, or English", () => {
    expect(languageOf(model('kosit-01.01a-INVOICE_ubl.xml'))).toBe('de');
    expect(languageOf(model('en16931-CII_example1.xml'))).toBe('nl');
    expect(languageOf(model('peppol-base-example.xml'))).toBe('en');
    expect(languageOf({ ...model('peppol-base-example.xml'), language: 'fr-FR' })).toBe('fr');
  });

  it('names the embedded XML as the standards do', () => {
    expect(embeddedXmlName(model('kosit-01.01a-INVOICE_uncefact.xml'))).toBe('xrechnung.xml');
    expect(embeddedXmlName(model('en16931-CII_example1.xml'))).toBe('factur-x.xml');
    expect(embeddedXmlName(model('peppol-base-example.xml'))).toBe('xrechnung.xml');
  });

  it('writes amounts as the language does', () => {
    expect(formatMoney('1210.5', 'EUR', 'de')).toBe('1.210,50\u00a0€');
    expect(formatMoney('1210.5', 'EUR', 'en')).toBe('€1,210.50');
    expect(formatMoney('3', 'XYZ', 'en')).toBe('XYZ\u00a03.00');
  });

  it('cents from the decimal text: half away from zero, signs, no floats', () => {
    expect([amountCents('336.9'), amountCents('0.005'), amountCents('-1.005'), amountCents('12'), amountCents('1,2'), amountCents('')]).toEqual([33690, 1, -101, 1200, undefined, undefined]);
  });
});
