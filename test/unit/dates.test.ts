import { describe, expect, it } from 'vitest';
import { formatDate, parseDate } from '../../src/domain/dates.ts';
import { DomainError } from '../../src/domain/errors.ts';

const refused = (raw: unknown, field = 'invoiceDate') => {
  try {
    parseDate(raw, field);
  } catch (e) {
    return e instanceof DomainError && e.kind === 'invalid' && e.detail === `Field ${field} in wrong format` && e.field === field;
  }
  return false;
};

describe('parseDate', () => {
  it('turns DD-MM-YYYY into an ISO date', () => {
    expect(parseDate('31-01-2026', 'invoiceDate')).toBe('2026-01-31');
    expect(parseDate('01-12-1999', 'invoiceDate')).toBe('1999-12-01');
    expect(parseDate(' 15-06-2026 ', 'invoiceDate')).toBe('2026-06-15');
  });

  it('knows leap years: 29 February exists in 2024, 2028 and 2000, not in 2026, 2100 or 1900', () => {
    for (const y of [2024, 2028, 2000, 1600]) expect(parseDate(`29-02-${y}`, 'd')).toBe(`${y}-02-29`);
    for (const y of [2026, 2025, 2100, 1900]) expect(refused(`29-02-${y}`, 'date')).toBe(true);
  });

  it('refuses days a month does not have', () => {
    for (const d of ['31-04-2026', '31-06-2026', '31-09-2026', '31-11-2026', '30-02-2024', '32-01-2026', '00-01-2026', '01-00-2026', '01-13-2026']) {
      expect(refused(d), d).toBe(true);
    }
    for (const d of ['31-01-2026', '31-03-2026', '30-04-2026', '31-12-2026']) expect(refused(d), d).toBe(false);
  });

  it('refuses other formats and types, naming the field', () => {
    for (const d of [
      '2026-01-31',
      '1-1-2026',
      '01-01-26',
      '01/01/2026',
      '01.01.2026',
      '01-01-2026T00:00',
      '',
      'today',
      '01-01-0000',
      null,
      undefined,
      20260131,
      {},
      [],
    ]) {
      expect(refused(d, 'date'), String(d)).toBe(true);
    }
  });
});

describe('formatDate', () => {
  it('writes DD-MM-YYYY from ISO text or a driver Date', () => {
    expect(formatDate('2026-01-31')).toBe('31-01-2026');
    expect(formatDate('2028-02-29')).toBe('29-02-2028');
    expect(formatDate(new Date(2026, 2, 5))).toBe('05-03-2026');
  });

  it('round-trips with parseDate', () => {
    for (const d of ['01-01-2026', '29-02-2024', '31-12-9999']) expect(formatDate(parseDate(d, 'x'))).toBe(d);
  });
});
