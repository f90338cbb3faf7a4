import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { formatCents, parseAmount } from '../../src/domain/money.ts';
import { thrown } from '../helpers/thrown.ts';

const MAX = 999_999_999; // 9999999.99

const error = (fn: () => unknown) => thrown(fn, DomainError);

describe('parseAmount', () => {
  it('reads two-decimal strings, fewer decimals, a decimal comma and JSON numbers as exact cents', () => {
    expect(parseAmount('480.00', 'invoiceTotal', MAX)).toBe(48000);
    expect(parseAmount('480', 'invoiceTotal', MAX)).toBe(48000);
    expect(parseAmount('480.5', 'invoiceTotal', MAX)).toBe(48050);
    expect(parseAmount('0.01', 'invoiceTotal', MAX)).toBe(1);
    expect(parseAmount('0.10', 'invoiceTotal', MAX)).toBe(10);
    expect(parseAmount('19,99', 'invoiceTotal', MAX)).toBe(1999);
    expect(parseAmount(' 12.34 ', 'invoiceTotal', MAX)).toBe(1234);
    expect(parseAmount(0.3, 'invoiceTotal', MAX)).toBe(30);
    expect(parseAmount(1100, 'invoiceTotal', MAX)).toBe(110000);
    expect(parseAmount(4.35, 'invoiceTotal', MAX)).toBe(435); // 4.35 * 100 is 434.99999 in floats
    expect(parseAmount('9999999.99', 'invoiceTotal', MAX)).toBe(MAX);
  });

  it('refuses malformed amounts with 400 Field <name> in wrong format', () => {
    for (const bad of [
      '',
      ' ',
      'abc',
      '1.234',
      '1.',
      '.5',
      '1e5',
      '1 000',
      '€5',
      '+5',
      '1.2.3',
      '0x10',
      'NaN',
      'Infinity',
      null,
      undefined,
      true,
      {},
      [],
      1.234,
      0.1 + 0.2 /* 0.30000000000000004: never rounded silently */,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e21,
    ]) {
      const e = error(() => parseAmount(bad, 'amount', MAX));
      expect(e.kind, String(bad)).toBe('invalid');
      expect(e.detail).toBe('Field amount in wrong format');
      expect(e.field).toBe('amount');
    }
  });

  it.each([
    ['-233.47', -23347],
    ['-8.79', -879],
    ['-5', -500],
    ['-0,5', -50],
    [-233.47, -23347],
    ['-0.00', 0],
    ['-999999.99', -99_999_999],
  ])('reads the negative amount %s of a credit note as %i cents', (raw, cents) => {
    expect(parseAmount(raw, 'invoiceTotal', MAX)).toBe(cents);
  });

  it.each([['--5'], ['- 5'], ['5-'], ['-'], ['-.5'], ['-1.234'], ['−5.00' /* U+2212 */]])('refuses the malformed negative %s with 400', (raw) => {
    expect(error(() => parseAmount(raw, 'amount', MAX))).toMatchObject({ kind: 'invalid', detail: 'Field amount in wrong format' });
  });

  it('MAX_AMOUNT bounds the absolute value (422), and the sign counts toward the 10 characters (400)', () => {
    expect(error(() => parseAmount('-10000000.00', 'invoiceTotal', MAX))).toMatchObject({ kind: 'unprocessable', field: 'invoicetotal' });
    expect(error(() => parseAmount('-100.01', 'amount', 10_000))).toMatchObject({ kind: 'unprocessable', field: 'amount' });
    expect(parseAmount('-100.00', 'amount', 10_000)).toBe(-10_000);
    expect(error(() => parseAmount('-9999999.99', 'invoiceTotal', MAX))).toMatchObject({
      kind: 'invalid',
      detail: 'Field invoiceTotal is longer than 10 characters',
    });
  });

  it('a well-formed amount above the maximum is 422 with the field in lowercase', () => {
    for (const over of ['10000000.00', '10000000', '99999999999999', 1e12]) {
      const e = error(() => parseAmount(over, 'invoiceTotal', MAX));
      expect(e.kind).toBe('unprocessable');
      expect(e.detail).toBe('The amount is higher than the maximum');
      expect(e.field).toBe('invoicetotal');
    }
    expect(error(() => parseAmount('100.01', 'amount', 10_000)).kind).toBe('unprocessable');
    expect(parseAmount('100.00', 'amount', 10_000)).toBe(10_000);
  });

  it('an amount within the maximum written in more than 10 characters is 400', () => {
    const e = error(() => parseAmount('00000001.00', 'invoiceBalance', MAX));
    expect(e).toMatchObject({ kind: 'invalid', field: 'invoiceBalance', detail: 'Field invoiceBalance is longer than 10 characters' });
    expect(parseAmount('0000001.00', 'invoiceBalance', MAX)).toBe(100);
  });
});

describe('formatCents', () => {
  it('writes two decimals always', () => {
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(1)).toBe('0.01');
    expect(formatCents(10)).toBe('0.10');
    expect(formatCents(48000)).toBe('480.00');
    expect(formatCents(38050)).toBe('380.50');
    expect(formatCents(MAX)).toBe('9999999.99');
    expect(formatCents(-1999)).toBe('-19.99');
  });

  it('round-trips with parseAmount', () => {
    for (const cents of [0, 1, 99, 100, 12345, 100000, MAX, -1, -23347, -99_999_999]) expect(parseAmount(formatCents(cents), 'x', MAX)).toBe(cents);
  });
});
