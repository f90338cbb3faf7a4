// Amounts are integer cents inside the service and two-decimal strings at its edges.
import { DomainError } from './errors.ts';

const AMOUNT = /^(-)?(\d+)(?:[.,](\d{1,2}))?$/;
/** The spec's Limits table: amounts are at most 10 characters ("9999999.99"). */
const MAX_AMOUNT_CHARS = 10;

/**
 * Parses "480", "480.5", "480.50", "480,50", "-233.47" (or a JSON number) into cents. Syntax
 * errors are 400; a well-formed amount whose absolute value is above the maximum is 422 with the
 * field in lowercase (spec: `invoicetotal`); a well-formed amount within the maximum but written in
 * more than 10 characters (the sign counts: "-999999.99" is the lowest) is 400. Whether a sign
 * fits the field is the caller's rule (balance-rules.ts), not syntax.
 */
export function parseAmount(raw: unknown, field: string, maxCents: number): number {
  // Numbers are read as written (480.5 -> "480.5"), so 480.555 is refused rather than rounded.
  const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const m = AMOUNT.exec(text);
  if (!m || m[2].length > 15) throw DomainError.wrongFormat(field);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  if (cents > maxCents) throw DomainError.unprocessable('The amount is higher than the maximum', field.toLowerCase());
  if (text.length > MAX_AMOUNT_CHARS) throw DomainError.invalid(`Field ${field} is longer than ${MAX_AMOUNT_CHARS} characters`, field);
  return m[1] && cents ? -cents : cents;
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
