// The PDF's text as the weakest evidence (docs/matching.md, "The PDF's text"): the label table,
// the notations of a total, and the decision's rule: exactly one invoice, confirmed by its total.
import { describe, expect, it } from 'vitest';
import { decideMatch } from '../../src/domain/match-decision.ts';
import { amountNotations, labelledNumbers, textHasAmount } from '../../src/domain/pdf-text-evidence.ts';
import { evidenceOf, invoiceIdOf } from '../helpers/match-evidence.ts';
import { said } from '../helpers/reasons.ts';

const numbers = (text: string) => labelledNumbers(text).map((c) => c.text);

describe('numbers after a label', () => {
  it.each([
    ['Invoice number: INV-000123', ['INV-000123']],
    ['Invoice no. INV-000123', ['INV-000123']],
    ['INVOICE # 4711', ['4711']],
    ['Rechnungsnummer RE-2024-0815', ['RE-2024-0815']],
    ['Rechnung Nr. 2024/17', ['2024/17']],
    ['Rechnungs-Nr.: 88812', ['88812']],
    ['Factuurnummer 2024.0815', ['2024.0815']],
    ['Factuurnr. F2024-1', ['F2024-1']],
    ['Numéro de facture : FA-2024-001', ['FA-2024-001']],
    ['Facture n° 2024-17', ['2024-17']],
    ['Rechnungsdatum 25.11.2024\nRechnungsbetrag 1.210,50', []],
    ['Invoice date 2024-11-25', []],
  ])('%j -> %j', (text, expected) => expect(numbers(text)).toEqual(expected));
});

describe('a total in the text', () => {
  it('is written in the common notations', () => {
    expect(amountNotations(121050)).toEqual(expect.arrayContaining(['1210.50', '1210,50', '1.210,50', '1,210.50', '1 210,50']));
  });

  it.each([
    ['Gesamtbetrag 1.210,50 EUR', true],
    ['Total: €1,210.50', true],
    ['Te betalen € 1210,50', true],
    ['Net à payer 1\u202f210,50 €', true],
    ['Total 11.210,50', false],
    ['Total 1.210,505', false],
    ['Total 1210.5', false],
  ])('%j holds 1210.50: %s', (text, expected) => expect(textHasAmount(text, 121050)).toBe(expected));
});

describe('the decision with the text', () => {
  const decide = (text: string, account: { number: string; totalCents: number }[]) => {
    const e = evidenceOf({ name: 'scan', account: account.map((a) => a.number) });
    const found = account.map((a) => ({ id: invoiceIdOf(a.number), invoiceNumber: a.number, totalCents: a.totalCents }));
    return decideMatch({ ...e, found, pdfText: { text, numbers: labelledNumbers(text) } });
  };

  it('attaches when one invoice is named and its total is written', () => {
    expect(decide('Rechnungsnummer RE-2024-0815\nGesamtbetrag 1.210,50 EUR', [{ number: 'RE-2024-0815', totalCents: 121050 }])).toMatchObject({
      kind: 'attach',
      invoiceId: invoiceIdOf('RE-2024-0815'),
      by: 'pdf_text',
    });
  });

  it('waits, saying what it found, when the total is not written', () => {
    expect(decide('Rechnungsnummer RE-2024-0815\nGesamtbetrag 1.210,50 EUR', [{ number: 'RE-2024-0815', totalCents: 110000 }])).toMatchObject({
      kind: 'wait',
      notes: [said("the PDF's text says invoice RE-2024-0815, but not its total 1,100.00")],
    });
  });

  it('refuses, naming both, when two labelled numbers are both invoices (issue 42)', () => {
    expect(
      decide('Invoice no. A-1\nInvoice no. A-2\nTotal 10.00', [
        { number: 'A-1', totalCents: 1000 },
        { number: 'A-2', totalCents: 1000 },
      ]),
    ).toEqual({
      kind: 'refuse',
      reason: said(
        "The PDF's text names several invoices (A-1 or A-2), so it cannot say which one it is; rename the file to the invoice's number or assign it",
      ),
    });
    const text = 'Rechnungsnummer: RE-2026-4712\nRechnungsnummer: RE-2026-4713\nGesamtbetrag: 1.210,50 EUR';
    expect(
      decide(text, [
        { number: 'RE-2026-4712', totalCents: 121050 },
        { number: 'RE-2026-4713', totalCents: 121050 },
      ]),
    ).toMatchObject({ kind: 'refuse', reason: { code: 'pdf_text_names_several', params: { numbers: ['RE-2026-4712', 'RE-2026-4713'] } } });
  });

  it('waits when the other labelled number is no invoice yet: the file may be that one', () => {
    const text = 'Rechnungsnummer: RE-2026-4713\nBezug: Rechnungsnummer RE-2026-4712\nGesamtbetrag: 1.210,50 EUR';
    expect(decide(text, [{ number: 'RE-2026-4712', totalCents: 121050 }])).toMatchObject({
      kind: 'wait',
      notes: [said("the PDF's text says invoice RE-2026-4712, but also RE-2026-4713, which is no invoice of this account (yet): the file may be that one")],
    });
  });

  it('reads no date or year after a label as a number', () => {
    expect(numbers('Rechnung 25.11.2024\nInvoice 2024\nRechnung vom 2024-11-25\nRechnungsnummer RE-2026-4711')).toEqual(['RE-2026-4711']);
  });

  it('says when there is no text at all (a scan)', () => {
    expect(decide('  \n ', [{ number: 'A-1', totalCents: 1000 }])).toMatchObject({
      kind: 'wait',
      notes: [said('the PDF has no text to read (a scan?), so only its name could say which invoice it is')],
    });
  });
});
