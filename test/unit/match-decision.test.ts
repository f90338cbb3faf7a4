// The one decision (docs/matching.md): each rule as a table of evidence -> attach, wait or refuse.
// The invoices an account has are given; the candidates are read from the name and subject as the
// worker reads them, so these rows are the real cases.
import { describe, expect, it } from 'vitest';
import type { EinvoiceReading } from '../../src/domain/document-facts.ts';
import { decideMatch, isReplySubject } from '../../src/domain/match-decision.ts';
import { labelledNumbers } from '../../src/domain/pdf-text-evidence.ts';
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
  it.each(['IMG_0123', 'scan_0001', '2024-11-25', 'F-2024-1170', 'DSC01234', 'Scan_20241125_0001', 'IMG-20241125-WA0001', 'RE-2024-0899'])(
    '%s names no invoice: it waits',
    (name) => {
      expect(decide({ name })).toMatchObject({ kind: 'wait' });
    },
  );

  it.each([
    ['INV_000123', 'INV-000123'],
    ['RE_2024_0816', 'RE/2024/0816'],
    ['Rechnung RE 2024 0816', 'RE/2024/0816'],
    ['Factuur 471102 getekend', '471102'],
  ])('%s attaches to %s as a whole token with its separators', (name, number) => {
    expect(decide({ name })).toMatchObject({ kind: 'attach', invoiceId: id(number), by: 'name_token' });
  });

  it('two numbers in one name: refused, both named', () => {
    expect(decide({ name: 'RE-2024-0815 and RE-2024-0821' })).toEqual({
      kind: 'refuse',
      reason: said('The file could be invoice RE-2024-0815 or RE-2024-0821; rename it or assign it'),
    });
  });
});

describe('the e-invoice', () => {
  it('under a meaningless name: attaches by it', () => {
    expect(decide({ name: 'scan_0001', einvoices: [xml('471102')] })).toMatchObject({
      kind: 'attach',
      invoiceId: id('471102'),
      by: 'einvoice',
      overruled: undefined,
    });
  });

  it('agreeing with the name: attaches by the name', () => {
    expect(decide({ name: '471102', einvoices: [xml('471102')] })).toMatchObject({ kind: 'attach', by: 'invoice_number' });
  });

  it('against the name of another existing invoice: refused, both numbers named', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [xml('471102')] })).toEqual({
      kind: 'refuse',
      reason: said("The file's name says RE-2024-0815, but its e-invoice says 471102; rename the file or assign it"),
    });
  });

  it('against a number in the name: refused', () => {
    expect(decide({ name: 'Factuur RE-2024-0821', einvoices: [xml('471102')] })).toMatchObject({ kind: 'refuse', reason: saying('471102') });
  });

  it("naming an invoice that does not exist, against a name that does: refused (not the name's invoice)", () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [xml('999999')] })).toEqual({
      kind: 'refuse',
      reason: said("The file's name says RE-2024-0815, but its e-invoice says 999999, which is no invoice of this account; rename the file or assign it"),
    });
  });

  it('naming an invoice that does not exist yet, under a meaningless name: waits for it, not for the subject', () => {
    expect(decide({ name: 'scan0002', einvoices: [xml('2026-0999')], subject: 'Rechnung RE-2024-0815' })).toEqual({
      kind: 'wait',
      awaits: { name: 'scan0002', einvoiceNumbers: ['2026-0999'] },
      open: false,
      device: true,
      notes: [
        said('its e-invoice says 2026-0999, which is no invoice of this account yet'),
        said("the e-mail's subject names RE-2024-0815, but the file's own evidence comes first"),
      ],
    });
    // a name that may be an invoice number is waited for too
    expect(decide({ name: 'RE-2024-0899', einvoices: [xml('2026-0999')] })).toEqual({
      kind: 'wait',
      awaits: { name: 'RE-2024-0899', einvoiceNumbers: ['2026-0999'] },
      notes: [],
      open: false,
    });
  });

  it('beats a name that names nothing, and says so', () => {
    expect(decide({ name: 'RE-2024-9999', einvoices: [xml('471102')] })).toMatchObject({
      kind: 'attach',
      by: 'einvoice',
      overruled: said('Matched by its e-invoice; overruled: its name RE-2024-9999, which names no invoice'),
    });
  });

  it('found but not understood: said in the reason', () => {
    expect(decide({ name: 'scan_0007', einvoices: [{ kind: 'unread' }] })).toEqual({
      kind: 'wait',
      awaits: { name: 'scan_0007', einvoiceNumbers: [] },
      notes: [said('an e-invoice XML was found but its number could not be read')],
      open: true,
      device: true,
    });
  });

  it('an order or a despatch advice is no evidence', () => {
    expect(decide({ name: 'RE-2024-0815', einvoices: [{ kind: 'other', what: 'an order (Order-X)' }] })).toMatchObject({
      kind: 'attach',
      by: 'invoice_number',
    });
  });
});

describe('the e-mail subject', () => {
  it("is evidence for a message's only file that names nothing itself", () => {
    expect(decide({ name: 'scan', subject: 'Rechnung RE-2024-0815' })).toMatchObject({ kind: 'attach', invoiceId: id('RE-2024-0815'), by: 'subject' });
  });

  it('is no evidence when the message carried several files (AGB.pdf beside RE-2024-0815.pdf)', () => {
    const agb = decide({ name: 'AGB', subject: 'Rechnung RE-2024-0815', messageFiles: 2 });
    expect(agb).toMatchObject({ kind: 'wait', awaits: { name: 'AGB', einvoiceNumbers: [] } });
    expect(agb.kind === 'wait' && agb.notes[0].text).toBe(
      "the e-mail's subject names RE-2024-0815, but the message carried 2 files, so its subject cannot say which one is the invoice",
    );
    // coded, so the dashboard words it in the reader's language
    expect(agb.kind === 'wait' && agb.notes[0]).toMatchObject({ code: 'note_subject_many_files', params: { numbers: ['RE-2024-0815'], files: 2 } });
    expect(decide({ name: 'RE-2024-0815', subject: 'Rechnung RE-2024-0815', messageFiles: 2 })).toMatchObject({ kind: 'attach', by: 'invoice_number' });
  });

  it("of a reply gives way to the file's name that names an invoice not created yet (AW: ... 0821 with RE-2024-0899.pdf)", () => {
    expect(decide({ name: 'RE-2024-0899', subject: 'AW: Rechnung RE-2024-0821' })).toEqual({
      kind: 'wait',
      awaits: { name: 'RE-2024-0899', einvoiceNumbers: [] },
      notes: [said("the reply's subject names RE-2024-0821, but the file's own evidence comes first")],
      open: false,
    });
    // once RE-2024-0899 exists it attaches there, and says what it overruled
    expect(decide({ name: 'RE-2024-0899', subject: 'AW: Rechnung RE-2024-0821', account: [...ACCOUNT, 'RE-2024-0899'] })).toMatchObject({
      kind: 'attach',
      invoiceId: id('RE-2024-0899'),
      by: 'invoice_number',
      overruled: said("Matched by its name; overruled: the reply's subject, which names RE-2024-0821"),
    });
  });

  it('against a number in the name: refused', () => {
    expect(decide({ name: 'Factuur 471102', subject: 'Rechnung RE-2024-0815' })).toEqual({
      kind: 'refuse',
      reason: said("The file's name says 471102, but the e-mail's subject says RE-2024-0815; rename the file or assign it"),
    });
  });

  it('naming two invoices: refused', () => {
    expect(decide({ name: 'scan', subject: 'RE-2024-0815 und RE-2024-0821' })).toMatchObject({
      kind: 'refuse',
      reason: saying('RE-2024-0815 or RE-2024-0821'),
    });
  });

  it.each(['AW: x', 'RE: x', 'Re: x', 'FW: x', 'Fwd: x', 'WG: x', 'Antw: x', 'SV: x', 'TR: x', 'RE[2]: x', 'AW: WG: x'])('%s is a reply or a forward', (s) =>
    expect(isReplySubject(s)).toBe(true),
  );
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
    expect(decideMatch({ name: 'inv_x', byName: { deletedId: 'inv_x' }, nameIsNumber: false, einvoices: [], nameTokens: [], found: [] })).toEqual({
      kind: 'refuse',
      reason: said('The invoice inv_x was deleted'),
    });
  });
});

describe("issue 42: dates, scanners' names and the PDF's text, with the issue's real names", () => {
  const account = ['0815', 'INV-000123', 'R0005532486', 'RE-2026-4711', 'RE-2026-4712', 'RE-2026-4713'];
  const text = (t: string) => ({ text: t, numbers: labelledNumbers(t) });
  const withTotals = (e: ReturnType<typeof evidenceOf>) => ({ ...e, found: e.found.map((f) => ({ ...f, totalCents: 121050 })) });
  const decideText = (name: string, t?: string) =>
    decideMatch({ ...withTotals(evidenceOf({ name, account })), ...(t === undefined ? {} : { pdfText: text(t) }) });

  it.each([
    ['Scan 2024-11-25 0815', { kind: 'wait', device: true }],
    ['Rechnung Nr. 0815 vom 25.11.2024', { kind: 'attach', invoiceId: id('0815'), by: 'name_token' }],
    ['invoice_2024-11-25_INV-000123', { kind: 'attach', invoiceId: id('INV-000123'), by: 'name_token' }],
    ['RE-E-974-Hetzner_2016-01-19_R0005532486', { kind: 'attach', invoiceId: id('R0005532486'), by: 'name_token' }],
    ['2024-11-25_08-15-33', { kind: 'wait', open: true, device: true }],
  ])('%s -> %j', (name, expected) => expect(decideText(name)).toMatchObject(expected));

  it.each(['scan_0042', 'random', 'IMG_1234', 'Scan 2024-11-25 0815'])('%s attaches by its text (number and total)', (name) => {
    expect(decideText(name, 'Rechnungsnummer: RE-2026-4711\nGesamtbetrag: 1.210,50 EUR')).toMatchObject({
      kind: 'attach',
      invoiceId: id('RE-2026-4711'),
      by: 'pdf_text',
    });
  });

  it("a scanner's name whose PDF names nothing is refused at once, saying both", () => {
    expect(decideText('scan_0042', '')).toEqual({
      kind: 'refuse',
      reason: said(
        "The file name scan_0042 is a scanner's or camera's name, not an invoice number, and nothing in the PDF names an invoice (no e-invoice, no invoice number in its text); rename the file to the invoice's number or assign it; the PDF has no text to read (a scan?), so only its name could say which invoice it is",
      ),
    });
  });

  it("a scanner's name whose text names an invoice not created yet waits, as a scanner's name", () => {
    expect(decideText('IMG_1234', 'Rechnungsnummer: RE-2026-9999\nGesamtbetrag: 1.210,50 EUR')).toMatchObject({
      kind: 'wait',
      device: true,
      notes: [said("the PDF's text says invoice RE-2026-9999, which is no invoice of this account")],
    });
  });

  it('an exact whole name still wins over a scanner-shaped name', () => {
    expect(decideMatch(evidenceOf({ name: 'IMG_1234', account: ['IMG_1234', '1234'] }))).toMatchObject({
      kind: 'attach',
      invoiceId: id('IMG_1234'),
      by: 'invoice_number',
    });
  });

  it('two labelled numbers that are both invoices are refused, naming both', () => {
    expect(decideText('random', 'Rechnungsnummer: RE-2026-4712\nRechnungsnummer: RE-2026-4713\nGesamtbetrag: 1.210,50 EUR')).toMatchObject({
      kind: 'refuse',
      reason: { code: 'pdf_text_names_several', params: { numbers: ['RE-2026-4712', 'RE-2026-4713'] } },
    });
  });
});
