// Credit notes in the one decision (docs/matching.md, "Credit notes"): the credit note's own number
// and its negative total attach it; the invoice it corrects (BT-25) is never where it goes; a sign
// that differs is said as a sign, never as "correct the invoice's total" alone.
import { describe, expect, it } from 'vitest';
import type { EinvoiceReading } from '../../src/domain/document-facts.ts';
import { decideMatch } from '../../src/domain/match-decision.ts';
import { evidenceOf, invoiceIdOf } from '../helpers/match-evidence.ts';

type Inv = [number: string, totalCents: number];
const decide = (name: string, account: Inv[], einvoices: EinvoiceReading[]) => {
  const e = evidenceOf({ name, account: account.map(([n]) => n), einvoices });
  return decideMatch({ ...e, found: e.found.map((f) => ({ ...f, totalCents: account.find(([n]) => n === f.invoiceNumber)![1] })) });
};
const creditNote = (number: string, cents: number, corrects?: string[]): EinvoiceReading => ({
  kind: 'invoice',
  number,
  grandCents: cents,
  dueCents: cents,
  currency: 'EUR',
  creditNote: true,
  ...(corrects ? { corrects } : {}),
});
const invoice = (number: string, cents: number): EinvoiceReading => ({ kind: 'invoice', number, grandCents: cents, dueCents: cents, currency: 'EUR' });

describe('credit notes', () => {
  it.each([
    ['a credit note (381) of 233.47 read as -233.47', creditNote('AV-2017-0005', -23347, ['FA-2017-0010'])],
    ['an avoir written as an invoice of -233.47 (380)', invoice('AV-2017-0005', -23347)],
  ])('%s attaches to its invoice of total -233.47 by its e-invoice', (_what, reading) => {
    const account: Inv[] = [
      ['AV-2017-0005', -23347],
      ['FA-2017-0010', 67115],
    ];
    expect(decide('scan_0001.pdf', account, [reading])).toMatchObject({ kind: 'attach', invoiceId: invoiceIdOf('AV-2017-0005'), by: 'einvoice' });
  });

  it('a credit note against an invoice of the positive total: refused, saying the sign and what to set', () => {
    const d = decide('scan_0001.pdf', [['AV-2017-0005', 23347]], [creditNote('AV-2017-0005', -23347)]);
    expect(d).toMatchObject({ kind: 'refuse', reason: { code: 'einvoice_credit_note_sign' } });
    if (d.kind !== 'refuse') return;
    expect(d.reason.text).toBe(
      "The e-invoice is credit note AV-2017-0005 of -233.47 EUR, but the invoice's total is 233.47; a credit note is an invoice with a negative total: set the invoice's total to -233.47 EUR, or send the file of invoice AV-2017-0005",
    );
    expect(d.reason.text).not.toContain("correct the invoice's total");
  });

  it('an invoice of a negative total against a positive one: refused as a sign that differs', () => {
    const d = decide('x.pdf', [['RK21012345', 879]], [invoice('RK21012345', -879)]);
    expect(d).toMatchObject({ kind: 'refuse', reason: { code: 'einvoice_sign_differs' } });
  });

  it('another amount of either sign is the totals check as before', () => {
    expect(decide('x.pdf', [['AV-2017-0005', -10000]], [creditNote('AV-2017-0005', -23347)])).toMatchObject({
      kind: 'refuse',
      reason: { code: 'einvoice_total_differs' },
    });
  });

  it('the invoice it corrects (BT-25) is never evidence: the credit note waits for its own number, and says so', () => {
    const d = decide('scan_0001.pdf', [['FA-2017-0010', 67115]], [creditNote('AV-2017-0005', -23347, ['FA-2017-0010'])]);
    expect(d).toMatchObject({ kind: 'wait', awaits: { einvoiceNumbers: ['AV-2017-0005'] } });
    if (d.kind !== 'wait') return;
    expect(d.notes.map((n) => n.text)).toEqual([
      'the e-invoice is credit note AV-2017-0005, which corrects invoice FA-2017-0010: it attaches only to an invoice numbered AV-2017-0005 (with a negative total), never to the invoice it corrects',
    ]);
  });

  it.each([
    ['named exactly after the corrected invoice, its own number unknown', 'FA-2017-0010', [['FA-2017-0010', 67115]] as Inv[], 'name_and_unknown_einvoice'],
    [
      'named exactly after the corrected invoice, its own number an invoice',
      'FA-2017-0010',
      [
        ['FA-2017-0010', 67115],
        ['AV-2017-0005', -23347],
      ] as Inv[],
      'name_and_einvoice_differ',
    ],
    [
      'a number in its name is the corrected invoice',
      'Gutschrift zu FA-2017-0010',
      [
        ['FA-2017-0010', 67115],
        ['AV-2017-0005', -23347],
      ] as Inv[],
      'einvoice_and_name_differ',
    ],
  ])('%s: refused, never attached to the corrected invoice', (_what, name, account, code) => {
    expect(decide(name, account, [creditNote('AV-2017-0005', -23347, ['FA-2017-0010'])])).toMatchObject({ kind: 'refuse', reason: { code } });
  });
});
