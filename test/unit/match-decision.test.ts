// The one decision (docs/matching.md): each rule as a table of evidence -> attach, wait or refuse.
// The invoices an account has are given; the candidates are read from the name and subject as the
// worker reads them, so these rows are the real cases.
import { describe, expect, it } from 'vitest';
import type { EinvoiceReading } from '../../src/domain/einvoice.ts';
import { decideMatch, isReplySubject } from '../../src/domain/match-decision.ts';
import { evidenceOf, invoiceIdOf, type FileCase } from '../helpers/match-evidence.ts';
import { said, saying } from '../helpers/reasons.ts';

const ACCOUNT = ['2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816', 'RE-2024-0815', 'RE-2024-0821', '471102', 'RE-2024-0848'];
const id = invoiceIdOf;
const decide = (c: Omit<FileCase, 'account'> & { account?: string[] }) => decideMatch(evidenceOf({ account: ACCOUNT, ...c }));
const xml = (number: string): EinvoiceReading => ({ kind: 'invoice', number });

describe('evidence naming three invoices', () => {
  it('a name and two e-invoices naming three invoices: refused, naming each, with a code', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [xml('471102'), xml('RE-2024-0821')] })).toEqual({
      kind: 'refuse',
      reason: expect.objectContaining({
        code: 'name_and_einvoices_name_several',
        text: "The file's name and its e-invoices name different invoices, RE-2024-0815, 471102 or RE-2024-0821; rename the file or assign it",
      }),
    });
  });
});

describe('the whole name', () => {
  it.each([
    ['RE-2024-0815', 'RE-2024-0815'],
    ['re-2024-0815', 'RE-2024-0815'],
    ['2024', '2024'],
    ['0001', '0001'],
  ])('%s attaches to %s by its name', (name, number) => {
    expect(decide({ name })).toMatchObject({ kind: 'attach', invoiceId: id(number), by: 'invoice_number' });
  });

  it('shaped like a number that does not exist yet: waits for it', () => {
    expect(decide({ name: 'RE-2024-0899' })).toEqual({ kind: 'wait', awaits: { name: 'RE-2024-0899', einvoiceNumbers: [] }, notes: [], open: false });
  });
});

describe('tokens that are not invoice numbers (issue 28 cases)', () => {
  it.each(['IMG_0123', 'scan_0001', '2024-11-25', 'F-2024-1170', 'DSC01234', 'Scan_20241125_0001', 'IMG-20241125-WA0001', 'RE-2024-0899'])('%s names no invoice: it waits', (name) => {
    expect(decide({ name })).toMatchObject({ kind: 'wait' });
  });

  it.each([
    ['INV_000123', 'INV-000123'],
    ['RE_2024_0816', 'RE/2024/0816'],
    ['Rechnung RE 2024 0816', 'RE/2024/0816'],
    ['Factuur 471102 getekend', '471102'],
  ])('%s attaches to %s as a whole token with its separators', (name, number) => {
    expect(decide({ name })).toMatchObject({ kind: 'attach', invoiceId: id(number), by: 'name_token' });
  });

  it('two numbers in one name: refused, both named', () => {
    expect(decide({ name: 'RE-2024-0815 and RE-2024-0821' })).toEqual({ kind: 'refuse', reason: said('The file could be invoice RE-2024-0815 or RE-2024-0821; rename it or assign it') });
  });
});

describe('the e-invoice', () => {
  it('under a meaningless name: attaches by it', () => {
    expect(decide({ name: 'scan_0001', einvoices: [xml('471102')] })).toMatchObject({ kind: 'attach', invoiceId: id('471102'), by: 'einvoice', overruled: undefined });
  });

  it('agreeing with the name: attaches by the name', () => {
    expect(decide({ name: '471102', einvoices: [xml('471102')] })).toMatchObject({ kind: 'attach', by: 'invoice_number' });
  });

  it('against the name of another existing invoice: refused, both numbers named', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [xml('471102')] })).toEqual({
      kind: 'refuse', reason: said("The file's name says RE-2024-0815, but its e-invoice says 471102; rename the file or assign it"),
    });
  });

  it('against a number in the name: refused', () => {
    expect(decide({ name: 'Factuur RE-2024-0821', einvoices: [xml('471102')] })).toMatchObject({ kind: 'refuse', reason: saying('471102') });
  });

  it('naming an invoice that does not exist, against a name that does: refused (not the name\'s invoice)', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [xml('999999')] })).toEqual({
      kind: 'refuse', reason: said("The file's name says RE-2024-0815, but its e-invoice says 999999, which is no invoice of this account; rename the file or assign it"),
    });
  });

  it('naming an invoice that does not exist yet, under a meaningless name: waits for it, not for the subject', () => {
    expect(decide({ name: 'scan0002', einvoices: [xml('2026-0999')], subject: 'Rechnung RE-2024-0815' })).toEqual({
      kind: 'wait', awaits: { name: 'scan0002', einvoiceNumbers: ['2026-0999'] }, notes: [said("the e-mail's subject names RE-2024-0815, but the file's own evidence comes first")], open: false,
    });
  });

  it('beats a name that names nothing, and says so', () => {
    expect(decide({ name: 'RE-2024-9999', einvoices: [xml('471102')] })).toMatchObject({ kind: 'attach', by: 'einvoice', overruled: said('Matched by its e-invoice; overruled: its name RE-2024-9999, which names no invoice') });
  });

  it('found but not understood: said in the reason', () => {
    expect(decide({ name: 'scan_0007', einvoices: [{ kind: 'unread' }] })).toEqual({ kind: 'wait', awaits: { name: 'scan_0007', einvoiceNumbers: [] }, notes: [said('an e-invoice XML was found but its number could not be read')], open: true });
  });

  it('an order or a despatch advice is no evidence', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [{ kind: 'other', what: 'an order (Order-X)' }] })).toMatchObject({ kind: 'attach', by: 'invoice_number' });
  });
});

describe('the e-mail subject', () => {
  it("is evidence for a message's only file that names nothing itself", () => {
    expect(decide({ name: 'scan', subject: 'Rechnung RE-2024-0815' })).toMatchObject({ kind: 'attach', invoiceId: id('RE-2024-0815'), by: 'subject' });
  });

  it('is no evidence when the message carried several files (AGB.pdf beside RE-2024-0815.pdf)', () => {
    const agb = decide({ name: 'AGB', subject: 'Rechnung RE-2024-0815', messageFiles: 2 });
    expect(agb).toMatchObject({ kind: 'wait', awaits: { name: 'AGB', einvoiceNumbers: [] } });
    expect(agb.kind === 'wait' && agb.notes[0].text).toBe("the e-mail's subject names RE-2024-0815, but the message carried 2 files, so its subject cannot say which one is the invoice");
    // coded, so the dashboard words it in the reader's language
    expect(agb.kind === 'wait' && agb.notes[0]).toMatchObject({ code: 'note_subject_many_files', params: { numbers: ['RE-2024-0815'], files: 2 } });
    expect(decide({ name: 'RE-2024-0815', subject: 'Rechnung RE-2024-0815', messageFiles: 2 })).toMatchObject({ kind: 'attach', by: 'invoice_number' });
  });

  it("of a reply gives way to the file's name that names an invoice not created yet (AW: ... 0821 with RE-2024-0899.pdf)", () => {
    expect(decide({ name: 'RE-2024-0899', subject: 'AW: Rechnung RE-2024-0821' })).toEqual({
      kind: 'wait', awaits: { name: 'RE-2024-0899', einvoiceNumbers: [] }, notes: [said("the reply's subject names RE-2024-0821, but the file's own evidence comes first")], open: false,
    });
    // once RE-2024-0899 exists it attaches there, and says what it overruled
    expect(decide({ name: 'RE-2024-0899', subject: 'AW: Rechnung RE-2024-0821', account: [...ACCOUNT, 'RE-2024-0899'] })).toMatchObject({
      kind: 'attach', invoiceId: id('RE-2024-0899'), by: 'invoice_number', overruled: said("Matched by its name; overruled: the reply's subject, which names RE-2024-0821"),
    });
  });

  it('against a number in the name: refused', () => {
    expect(decide({ name: 'Factuur 471102', subject: 'Rechnung RE-2024-0815' })).toEqual({
      kind: 'refuse', reason: said("The file's name says 471102, but the e-mail's subject says RE-2024-0815; rename the file or assign it"),
    });
  });

  it('naming two invoices: refused', () => {
    expect(decide({ name: 'scan', subject: 'RE-2024-0815 und RE-2024-0821' })).toMatchObject({ kind: 'refuse', reason: saying('RE-2024-0815 or RE-2024-0821') });
  });

  it.each(['AW: x', 'RE: x', 'Re: x', 'FW: x', 'Fwd: x', 'WG: x', 'Antw: x', 'SV: x', 'TR: x', 'RE[2]: x', 'AW: WG: x'])('%s is a reply or a forward', (s) => expect(isReplySubject(s)).toBe(true));
  it.each(['Rechnung RE-1', 'Reminder', 'TRX 17', 'Antwort folgt'])('%s is not', (s) => expect(isReplySubject(s)).toBe(false));
});

describe('Unicode', () => {
  it('a name in NFD finds the NFC number and the reverse', () => {
    const account = ['J\u00fcrgen-0042'];
    const name = 'Rechnung Ju\u0308rgen-0042'.normalize('NFC');
    expect(decide({ name, account })).toMatchObject({ kind: 'attach', by: 'name_token' });
    expect(decide({ name: 'Rechnung Ju\u0308rgen-0042', account })).toMatchObject({ kind: 'attach', by: 'name_token' });
  });
});

describe('a deleted invoice named by its id', () => {
  it('is refused', () => {
    expect(decideMatch({ name: 'inv_x', byName: { deletedId: 'inv_x' }, nameIsNumber: false, einvoices: [], nameTokens: [], found: [] })).toEqual({ kind: 'refuse', reason: said('The invoice inv_x was deleted') });
  });
});
