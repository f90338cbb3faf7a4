// Amounts are integer cents inside the service and two-decimal strings at its edges.
import { ApiError } from './errors.ts';

const AMOUNT = /^(-)?(\d+)(?:[.,](\d{1,2}))?$/;

/**
 * Parses "480", "480.5", "480.50" (or a JSON number) into cents. Syntax errors are 400;
 * a well-formed amount above the maximum is 422 with the field in lowercase (spec: `invoicetotal`).
 */
export function parseAmount(raw: unknown, field: string, maxCents: number, opts: { allowNegative?: boolean } = {}): number {
  const text = typeof raw === 'number' && Number.isFinite(raw) ? raw.toFixed(2) : typeof raw === 'string' ? raw.trim() : '';
  const m = AMOUNT.exec(text);
  if (!m || (m[1] && !opts.allowNegative) || m[2].length > 13) throw ApiError.wrongFormat(field);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  if (cents > maxCents) throw ApiError.unprocessable('The amount is higher than the maximum', field.toLowerCase());
  return m[1] ? -cents : cents;
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
