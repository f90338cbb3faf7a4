// The PDF's own text as evidence, the weakest of all (docs/matching.md, "The PDF's text"): an
// invoice number written after a label such as "Rechnungsnummer", and the invoice's total written
// somewhere in the text. Pure: the text comes from a PDF check thread (pdfjs-dist).
import { dateTimeSpans, notANumber, type Candidate } from './match-names.ts';

/** Labels that introduce an invoice's number, in English, Dutch, German and French (case-insensitive). */
const NUMBER_LABELS: { language: string; label: string }[] = [
  { language: 'en', label: 'invoice number' },
  { language: 'en', label: 'invoice no' },
  { language: 'en', label: 'invoice #' },
  { language: 'en', label: 'invoice nr' },
  { language: 'en', label: 'invoice id' },
  { language: 'en', label: 'invoice' },
  { language: 'nl', label: 'factuurnummer' },
  { language: 'nl', label: 'factuurnr' },
  { language: 'nl', label: 'factuur nr' },
  { language: 'nl', label: 'factuur nummer' },
  { language: 'nl', label: 'factuur' },
  { language: 'de', label: 'rechnungsnummer' },
  { language: 'de', label: 'rechnungs-nr' },
  { language: 'de', label: 'rechnung nr' },
  { language: 'de', label: 'rechnungsnr' },
  { language: 'de', label: 'rechnung' },
  { language: 'fr', label: 'numéro de facture' },
  { language: 'fr', label: 'n° de facture' },
  { language: 'fr', label: 'no de facture' },
  { language: 'fr', label: 'facture n°' },
  { language: 'fr', label: 'facture no' },
  { language: 'fr', label: 'facture' },
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s*');
// longest labels first, so "invoice number" is read before "invoice"
const LABEL = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...NUMBER_LABELS]
    .sort((a, b) => b.label.length - a.label.length)
    .map((l) => escapeRegExp(l.label))
    .join('|')})\\.?\\s*(?:(?:no|nr|n°|nº|#)\\.?\\s*)?[:#]?\\s*([\\p{L}\\p{N}][\\p{L}\\p{N}\\-_./]*[\\p{L}\\p{N}]|\\p{N})`,
  'giu',
);
/** at most this much text is read: a number and a total are on an invoice's first pages */
const MAX_TEXT = 200_000;

/** The numbers written right after a label, in the order they appear (each once). */
export function labelledNumbers(text: string): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  // runs of blanks become one space (LABEL's \s* in a row took quadratic time on a label followed by
  // many blanks: 16,000 of them 2.5 s); LABEL reads no blank inside a number
  for (const m of text.slice(0, MAX_TEXT).normalize('NFC').replace(/\s+/gu, ' ').matchAll(LABEL)) {
    const n = m[1];
    // a label followed by a word ("Invoice date", "Rechnung an") names no number
    if (!/\p{N}/u.test(n) || seen.has(n)) continue;
    // "Rechnung 25.11.2024", "Invoice 2024": a date or a year is no invoice number here either
    if (notANumber(n) || dateTimeSpans(n).length) continue;
    seen.add(n);
    out.push({ text: n });
  }
  return out;
}

/** How a total is written: `1.210,50`, `1,210.50`, `1210.50`, `1210,50`, `1 210,50`, `1'210.50`. */
export function amountNotations(cents: number): string[] {
  const sign = cents < 0 ? '-' : '';
  const whole = String(Math.floor(Math.abs(cents) / 100));
  const frac = String(Math.abs(cents) % 100).padStart(2, '0');
  const grouped = (sep: string) => whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  const forms = new Set([
    `${whole}.${frac}`,
    `${whole},${frac}`,
    `${grouped('.')},${frac}`,
    `${grouped(',')}.${frac}`,
    `${grouped(' ')},${frac}`,
    `${grouped(' ')}.${frac}`,
    `${grouped("'")}.${frac}`,
  ]);
  return [...forms].map((f) => sign + f);
}

/** The total written in the text as an amount of its own (not inside a longer number). */
export function textHasAmount(text: string, cents: number): boolean {
  const flat = text.slice(0, MAX_TEXT).replace(/[\u00a0\u202f\u2009]/g, ' ');
  return amountNotations(cents).some((form) => new RegExp(`(?<![\\d.,'])${form.replace(/[.']/g, '\\$&')}(?![\\d]|[.,]\\d)`).test(flat));
}
