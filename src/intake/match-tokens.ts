// Matching by the invoice numbers a text contains (a file name, an e-mail subject) or an e-invoice
// names. Pure: the candidates go to the number index in one query; this decides what the rows mean.

/** A shorter number is too likely to occur by chance (a year, a page, "scan0001"'s parts). */
export const MIN_TOKEN_LENGTH = 4;
/** Invoice numbers are at most 100 characters; and a number of more than 8 parts is not seen. */
const MAX_TOKEN_LENGTH = 100;
const MAX_TOKEN_PARTS = 8;
/** runs read from the start of a text: a long subject costs at most 64 x 8 candidates */
const MAX_RUNS = 64;

export interface Candidate {
  text: string;
  /** where it sits in the text it came from (absent for e-invoice numbers, which stand alone) */
  start?: number;
  end?: number;
}

export interface FoundInvoice {
  id: string;
  invoiceNumber: string;
}

export type Resolution = { invoiceId: string } | { ambiguous: string[] } | undefined;

/**
 * Every whole token of the text: a run of letters and digits, or several runs with what stood
 * between them ("2026-0117", "INV 2026/17"), never part of a run ("2026-01170" holds no 2026-0117).
 */
export function tokenCandidates(text: string): Candidate[] {
  const s = text.normalize('NFC');
  const runs: { start: number; end: number }[] = [];
  for (const m of s.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (runs.length === MAX_RUNS) break;
    runs.push({ start: m.index, end: m.index + m[0].length });
  }
  const out = new Map<string, Candidate>();
  for (let i = 0; i < runs.length; i++) {
    for (let j = i; j < runs.length && j < i + MAX_TOKEN_PARTS; j++) {
      const [start, end] = [runs[i].start, runs[j].end];
      if (end - start > MAX_TOKEN_LENGTH) break;
      const token = s.slice(start, end);
      if (token.length >= MIN_TOKEN_LENGTH && !out.has(token)) out.set(token, { text: token, start, end });
    }
  }
  return [...out.values()];
}

/**
 * What the found invoices say about the candidates: one invoice, several (each number named), or
 * none. A number that differs only in case counts when no invoice has the exact one; a token
 * inside a longer token that is a number too ("2026-0117" in "INV-2026-0117") gives way to it.
 */
export function resolve(candidates: Candidate[], found: FoundInvoice[]): Resolution {
  const byNumber = new Map<string, FoundInvoice[]>();
  for (const f of found) byNumber.set(f.invoiceNumber.toLowerCase(), [...(byNumber.get(f.invoiceNumber.toLowerCase()) ?? []), f]);
  const hits = candidates.flatMap((c) => {
    const all = byNumber.get(c.text.toLowerCase()) ?? [];
    const exact = all.filter((f) => f.invoiceNumber === c.text);
    return (exact.length ? exact : all).map((invoice) => ({ c, invoice }));
  });
  const inside = (a: Candidate, b: Candidate) =>
    a.start !== undefined && b.start !== undefined && b.start <= a.start && a.end! <= b.end! && b.end! - b.start > a.end! - a.start;
  const kept = hits.filter((h) => !hits.some((o) => inside(h.c, o.c)));
  const invoices = new Map(kept.map((h) => [h.invoice.id, h.invoice.invoiceNumber]));
  if (invoices.size === 1) return { invoiceId: [...invoices.keys()][0] };
  return invoices.size ? { ambiguous: [...invoices.values()].sort() } : undefined;
}

/** "The file could be invoice A or B; ..." */
export function ambiguityReason(numbers: string[]): string {
  const list = numbers.length > 1 ? `${numbers.slice(0, -1).join(', ')} or ${numbers[numbers.length - 1]}` : numbers[0];
  return `The file could be invoice ${list}; rename it or assign it`;
}
