// Tokens as evidence (docs/matching.md, "Tokens"): what is never a number on its own, what gives
// way to what, and how a token compares with an invoice number. One table per rule.
import { describe, expect, it } from 'vitest';
import {
  dateTimeSpans,
  deviceName,
  evidenceCandidates,
  hitsOf,
  looksLikeInvoiceNumber,
  matchKey,
  notANumber,
  numberShaped,
} from '../../src/domain/match-names.ts';

const texts = (s: string) => evidenceCandidates(s).map((c) => c.text);
const inv = (id: string, invoiceNumber: string) => ({ id, invoiceNumber });
const named = (text: string, ...numbers: string[]) =>
  [
    ...new Set(
      hitsOf(
        evidenceCandidates(text),
        numbers.map((n, i) => inv(`inv_${i}`, n)),
      ).map((h) => h.invoice.invoiceNumber),
    ),
  ].sort();

describe('dates, years and counters are never numbers on their own', () => {
  it.each([
    ['2024-11-25', true],
    ['25.11.2024', true],
    ['20241125', true],
    ['2024_11_25', true],
    ['1.2.2024', true],
    ['2024-11', true],
    ['2024', true],
    ['1999', true],
    ['IMG_0123', true],
    ['scan_0001', true],
    ['DSC01234', true],
    ['DSCN0042', true],
    ['Scan 0007', true],
    ['PXL_20241125', true],
    ['WA0001', true],
    ['2024-13-25', false],
    ['20241325', false],
    ['0815', false],
    ['2024-0815', false],
    ['RE-2024-0815', false],
    ['0001', false],
    ['3024', false],
    ['DOC-2024-17', false],
  ])('%s: %s', (token, expected) => expect(notANumber(token)).toBe(expected));
});

describe('which tokens of a name are evidence', () => {
  it.each([
    ['IMG_0123', []],
    ['scan_0001', []],
    ['DSC01234', []],
    ['2024-11-25', []],
    ['Scan 2024-11-25', []],
    ['IMG-20241125-WA0001', []],
    ['F-2024-1170', ['F-2024', 'F-2024-1170']],
    ['RE_2024_0816', ['RE_2024', 'RE_2024_0816']],
    ['INV_000123', ['INV_000123', '000123']],
    ['Factuur 2026-0117', ['Factuur', 'Factuur 2026', 'Factuur 2026-0117', '2026-0117']],
    ['scan_0001_RE-2024-0815', ['RE-2024', 'RE-2024-0815']],
    ['RE-2024-0815_2024-11-25', ['RE-2024', 'RE-2024-0815']],
  ])('%s -> %j', (name, expected) => expect(texts(name)).toEqual(expect.arrayContaining(expected)));

  it('drops the tail of a longer number (0815 in RE-2024-0815), keeps its head (RE-2024-0815 in RE-2024-0815_v2)', () => {
    expect(texts('RE-2024-0815')).not.toContain('0815');
    expect(texts('F-2024-1170')).not.toContain('1170');
    expect(texts('RE-2024-0815_v2')).toContain('RE-2024-0815');
    expect(texts('INV-2026-0117')).toContain('2026-0117'); // a prefix of letters only adds no number
  });

  it('never offers a year, a date or a counter, nor a part of one', () => {
    for (const name of ['2024-11-25', 'F-2024-1170', 'RE_2024_0816', 'Rechnung 2024', 'IMG_0123', 'scan_0001', 'DSC01234']) {
      expect(texts(name).filter((t) => /^\d+$/.test(t) && (notANumber(t) || (name.includes(`_${t}`) && /img|scan|dsc/i.test(name))))).toEqual([]);
    }
  });
});

describe('what a name names, against an account with short numbers (issue 28)', () => {
  const account = ['2024', '0815', '000123', '0001', '0123', 'INV-000123', 'RE/2024/0816'];
  it.each([
    ['IMG_0123', []],
    ['scan_0001', []],
    ['2024-11-25', []],
    ['F-2024-1170', []],
    ['INV_000123', ['INV-000123']],
    ['RE_2024_0816', ['RE/2024/0816']],
    ['RE 2024 0816', ['RE/2024/0816']],
    ['Rechnung RE.2024.0816 final', ['RE/2024/0816']],
    ['RE-2024-0815', []],
    ['Rechnung 0815', ['0815']],
  ])('%s -> %j', (name, expected) => expect(named(name, ...account)).toEqual(expected));

  it('the exact number wins over the same number in another case or with other separators', () => {
    expect(named('RE-2024-0816', 'RE-2024-0816', 'RE/2024/0816')).toEqual(['RE-2024-0816']);
    expect(named('re-2024-0816', 'RE-2024-0816', 'RE/2024/0816')).toEqual(['RE-2024-0816']);
    expect(named('RE_2024_0816', 'RE-2024-0816', 'RE/2024/0816')).toEqual(['RE-2024-0816', 'RE/2024/0816']);
  });
});

describe('the compared form', () => {
  it('is NFC, lower case, with one separator for - _ . / and blanks', () => {
    expect(matchKey('RE_2024/0816')).toBe('re-2024-0816');
    expect(matchKey('INV 7.1')).toBe('inv-7-1');
    expect(matchKey('Ju\u0308rgen-0042')).toBe(matchKey('J\u00fcrgen-0042'));
  });
});

describe('a whole name shaped like an invoice number (worth waiting for)', () => {
  it.each([
    ['RE-2024-0899', true],
    ['INV_000123', true],
    ['F2024-17', true],
    ['0815', true],
    ['J\u00fcrg-0042', true],
    ['AGB', false],
    ['scan0001', false],
    ['IMG_0123', false],
    ['2024-11-25', false],
    ['2024', false],
    ['Rechnung_2024_11', false],
    ['Factuur 2026-0117', false],
    ['invoice', false],
  ])('%s: %s', (name, expected) => {
    expect(looksLikeInvoiceNumber(name)).toBe(expected);
    if (expected) expect(numberShaped(name)).toBe(true);
  });
});

describe('days and times in names are never numbers, nor parts of one (issue 42)', () => {
  const spans = (s: string) => dateTimeSpans(s).map((sp) => s.slice(sp.start, sp.end));
  it.each([
    ['Scan 2024-11-25 0815', ['2024-11-25 0815']],
    ['Rechnung Nr. 0815 vom 25.11.2024', ['25.11.2024']],
    ['invoice_2024-11-25_INV-000123', ['2024-11-25']],
    ['RE-E-974-Hetzner_2016-01-19_R0005532486', ['2016-01-19']],
    ['2024-11-25_08-15-33', ['2024-11-25_08-15-33']],
    ['Scan_20241125_081533', ['20241125_081533']],
    ['PXL_20241125_081533123', ['20241125_081533123']],
    ['20241125T081533', ['20241125T081533']],
    ['1.2.2024 12-30', ['1.2.2024 12-30']],
    ['2024-11-25_2460', ['2024-11-25']],
    ['RE-2024-0815', []],
    ['RE-2024-11-0042', []],
    ['2024-13-25', []],
    ['20241325', []],
  ])('%s holds %j', (name, expected) => expect(spans(name)).toEqual(expected));

  it.each([
    ['Scan 2024-11-25 0815', []],
    ['Rechnung Nr. 0815 vom 25.11.2024', ['0815']],
    ['invoice_2024-11-25_INV-000123', ['INV-000123']],
    ['RE-E-974-Hetzner_2016-01-19_R0005532486', ['R0005532486']],
    ['2024-11-25_08-15-33', []],
    ['Scan_20241125_081533', []],
    ['20241125_12345', ['12345']],
  ])('%s names %j against an account that has them all', (name, expected) => {
    const account = ['0815', '2024', '1125', '000123', 'INV-000123', 'R0005532486', '12345', '0833', '081533', '25-0815', '2024-11-25 0815'];
    expect(named(name, ...account)).toEqual(expected);
  });

  it('a number after a day is a number of its own, not the tail of a longer one', () => {
    expect(texts('invoice_2024-11-25_INV-000123')).toContain('INV-000123');
    expect(texts('RE-E-974-Hetzner_2016-01-19_R0005532486')).toContain('R0005532486');
    expect(texts('invoice_2024-11-25_INV-000123')).not.toContain('2024-11-25_INV-000123');
  });

  it.each(['2024-11-25_08-15-33', 'Scan_20241125_081533', 'RE-2024-0815_2024-11-25', '20241125_0001'])(
    '%s is not shaped like an invoice number (not waited for)',
    (name) => {
      expect(looksLikeInvoiceNumber(name)).toBe(false);
    },
  );
});

describe("a scanner's or camera's name (issue 42)", () => {
  it.each([
    ['scan_0042', true],
    ['Scan 2024-11-25 0815', true],
    ['IMG_1234', true],
    ['DSC01234', true],
    ['SCN_0001', true],
    ['doc00042120241125', true],
    ['Scan_20241125_081533', true],
    ['IMG-20241125-WA0001', true],
    ['PXL_20241125_081533123', true],
    ['2024-11-25_08-15-33', true],
    ['2024-11-25', true],
    ['Scanned Document 12', true],
    ['scan0001', true],
    ['DSCN0042', true],
    ['DOC-2024-17', false],
    ['RE-2024-0815', false],
    ['0042', false],
    ['random', false],
    ['scan', false],
    ['scan_0001_RE-2024-0815', false],
    ['Rechnung Nr. 0815 vom 25.11.2024', false],
    ['invoice_2024-11-25_INV-000123', false],
    ['IMG_1234 RE-7', false],
  ])('%s: %s', (name, expected) => expect(deviceName(name)).toBe(expected));
});
