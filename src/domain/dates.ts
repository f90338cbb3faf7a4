// Dates travel as DD-MM-YYYY and are stored as ISO dates (YYYY-MM-DD).
import { DomainError } from './errors.ts';

const DMY = /^(\d{2})-(\d{2})-(\d{4})$/;

/** "31-01-2026" -> "2026-01-31"; anything that is not a real calendar day is a 400 naming the field. */
export function parseDate(raw: unknown, field: string): string {
  const m = typeof raw === 'string' ? DMY.exec(raw.trim()) : null;
  if (!m) throw DomainError.wrongFormat(field);
  const [, d, mo, y] = m;
  const day = Number(d),
    month = Number(mo),
    year = Number(y);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (year < 1 || month < 1 || month > 12 || probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    throw DomainError.wrongFormat(field);
  }
  return `${y}-${mo}-${d}`;
}

/** ISO date (or a Date from the driver) -> DD-MM-YYYY. */
export function formatDate(iso: string | Date): string {
  const s = iso instanceof Date ? `${iso.getFullYear()}-${String(iso.getMonth() + 1).padStart(2, '0')}-${String(iso.getDate()).padStart(2, '0')}` : iso;
  return `${s.slice(8, 10)}-${s.slice(5, 7)}-${s.slice(0, 4)}`; // every response carries dates: no array per call
}
