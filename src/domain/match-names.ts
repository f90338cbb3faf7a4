// What a file name, an e-mail subject or an e-invoice says about invoice numbers (docs/matching.md,
// "Tokens"). Pure: which tokens are candidates, which are not numbers at all (dates, years,
// scanner and camera counters), and how a candidate compares with an invoice number.

/** A shorter token is too likely to occur by chance (a page, a part of a date). */
export const MIN_TOKEN_LENGTH = 4;
/** Invoice numbers are at most 100 characters; a number of more than 8 parts is not seen. */
const MAX_TOKEN_LENGTH = 100;
const MAX_TOKEN_PARTS = 8;
/** runs read from the start of a text: a long name or subject costs at most 128 x 8 candidates */
const MAX_RUNS = 128;

export interface Candidate {
  text: string;
  /** where it sits in the text it came from (absent for e-invoice numbers, which stand alone) */
  start?: number;
  end?: number;
}

export interface FoundInvoice {
  id: string;
  invoiceNumber: string;
  /** its total, for the e-invoice's totals check (match-decision.ts) */
  totalCents?: number;
}

/**
 * The form numbers are compared in: Unicode NFC, lower case, and `-`, `_`, `.`, `/` and blanks
 * as one separator (`RE_2024_0816` is `RE/2024/0816`). The database indexes the same form
 * (migration 0015: translate(lower(invoice_number), ...)), so keep SEPARATORS in step with it.
 */
export const SEPARATORS = '_./ ';
export const matchKey = (s: string): string =>
  s
    .normalize('NFC')
    .toLowerCase()
    .replace(/[_./ ]/g, '-');

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

const year = (y: string) => Number(y) >= 1900 && Number(y) <= 2099;
const month = (m: string) => Number(m) >= 1 && Number(m) <= 12;
const day = (d: string) => Number(d) >= 1 && Number(d) <= 31;
/** dates and a year alone, each part checked: `2024-11-25`, `25.11.2024`, `20241125`, `2024-11`, `2024` */
const DATES: [RegExp, (m: RegExpExecArray) => boolean][] = [
  [/^(\d{4})([-_. ]?)(\d{2})\2(\d{2})$/, (m) => year(m[1]) && month(m[3]) && day(m[4])],
  [/^(\d{1,2})[-_. ](\d{1,2})[-_. ](\d{4})$/, (m) => day(m[1]) && month(m[2]) && year(m[3])],
  [/^(\d{4})[-_.](\d{2})$/, (m) => year(m[1]) && month(m[2])],
  [/^(\d{4})$/, (m) => year(m[1])],
];
/** what scanners, cameras, phones and copiers name their files: a word and a counter (not `DOC-2024-17`) */
const COUNTER =
  /(?<![\p{L}\p{N}])(?:img|dsc[nf]?|pxl|pic|photo|image|bild|foto|scan|scanned|scn|doc|document|dokument|page|seite|capture|screenshot|vid|wa)[-_ ]?(\d{2,})(?!\p{N}|[-_./]\p{N})/giu;

/** A date, a year alone, or a scanner's or camera's counter: never an invoice number on its own. */
export function notANumber(token: string): boolean {
  const t = token.normalize('NFC');
  if (
    DATES.some(([re, valid]) => {
      const m = re.exec(t);
      return m !== null && valid(m);
    })
  )
    return true;
  COUNTER.lastIndex = 0;
  const m = COUNTER.exec(t);
  return m !== null && m.index === 0 && m[0].length === t.length;
}

interface Span {
  start: number;
  end: number;
}
const runsOf = (s: string): Span[] => [...s.matchAll(/[\p{L}\p{N}]+/gu)].slice(0, MAX_RUNS).map((m) => ({ start: m.index, end: m.index + m[0].length }));
/** one separator between two runs: `-`, `_`, `.` or a blank */
const joined = (s: string, a: Span, b: Span) => /^[-_. ]$/.test(s.slice(a.end, b.start));
const validTime = (h: string, m: string, sec = '00') => Number(h) <= 23 && Number(m) <= 59 && Number(sec) <= 59;
/** a day: `2024-11-25`, `25.11.2024`, `1.2.2024`, `20241125`, also glued to its time (`20241125T081533`, `20241125081533`) */
function dayAt(s: string, runs: Span[], i: number): number {
  const one = /^(\d{4})(\d{2})(\d{2})(?:t?(\d{2})(\d{2})(\d{2})?)?$/i.exec(s.slice(runs[i].start, runs[i].end));
  if (one && year(one[1]) && month(one[2]) && day(one[3]) && (!one[4] || validTime(one[4], one[5], one[6]))) return i;
  if (i + 2 >= runs.length || !joined(s, runs[i], runs[i + 1]) || !joined(s, runs[i + 1], runs[i + 2])) return -1;
  const text = s.slice(runs[i].start, runs[i + 2].end);
  return DATES.slice(0, 2).some(([re, valid]) => {
    const m = re.exec(text);
    return m !== null && valid(m);
  })
    ? i + 2
    : -1;
}
/** the time right after a day, as cameras and scanners write it: `0815`, `081533`, `081533123`, `08-15`, `08-15-33` */
function timeAfter(s: string, runs: Span[], i: number): number {
  const r = (k: number) => s.slice(runs[k].start, runs[k].end);
  if (i + 1 >= runs.length || !joined(s, runs[i], runs[i + 1])) return i;
  const glued = /^(\d{2})(\d{2})(?:(\d{2})(\d{3})?)?$/.exec(r(i + 1));
  if (glued && validTime(glued[1], glued[2], glued[3])) return i + 1;
  if (!/^\d{2}$/.test(r(i + 1)) || i + 2 >= runs.length || !joined(s, runs[i + 1], runs[i + 2]) || !/^\d{2}$/.test(r(i + 2))) return i;
  if (!validTime(r(i + 1), r(i + 2))) return i;
  return i + 3 < runs.length && joined(s, runs[i + 2], runs[i + 3]) && /^\d{2}$/.test(r(i + 3)) && validTime(r(i + 1), r(i + 2), r(i + 3)) ? i + 3 : i + 2;
}
/**
 * Where the text holds a day, with the time after it: never a number, nor a part of one
 * (`0815` in `Scan 2024-11-25 0815` is a time; `INV-000123` in `invoice_2024-11-25_INV-000123` is a number of its own).
 */
export function dateTimeSpans(text: string): Span[] {
  const s = text.normalize('NFC');
  const runs = runsOf(s);
  const out: Span[] = [];
  for (let i = 0; i < runs.length; i++) {
    const last = dayAt(s, runs, i);
    if (last < 0) continue;
    const end = timeAfter(s, runs, last);
    out.push({ start: runs[i].start, end: runs[end].end });
    i = end;
  }
  return out;
}

/** the words scanners, cameras, phones and copiers start their file names with */
const DEVICE_WORD =
  /^(?:img|dsc[nf]?|pxl|pic|photo|image|bild|foto|scan|scanned(?:[-_ ]?(?:document|image))?|scn|doc|document|dokument|page|seite|capture|screenshot|screen[-_ ]?shot|vid|wa|mvimg)(?=[-_ ]|\d)/iu;
/**
 * A name a device gave (docs/matching.md, "Scanner and camera names"): a device's word with a
 * counter (`scan_0042`, `IMG_1234`, `DSC01234`, `doc00042120241125`), or with a date and time
 * (`Scan 2024-11-25 0815`, `Scan_20241125_081533`, `IMG-20241125-WA0001`), or a date and time
 * alone (`2024-11-25_08-15-33`). Not `DOC-2024-17` (two numbers, no date): that may be an invoice's.
 */
export function deviceName(stem: string): boolean {
  const s = stem.normalize('NFC').trim();
  const word = DEVICE_WORD.exec(s);
  const rest = (word ? s.slice(word[0].length) : s).replace(/^[-_ ]/, '').replace(/[-_ ]wa\d+$/i, '');
  if (!/^\d[\d\-_. ]*$/.test(rest) || !/\d$/.test(rest)) return false;
  const spans = dateTimeSpans(rest);
  // what the day and its time leave is a counter at most
  const left = spans.reduceRight((r, sp) => r.slice(0, sp.start) + ' '.repeat(sp.end - sp.start) + r.slice(sp.end), rest).match(/\d+/g) ?? [];
  if (spans.length) return left.length <= 1;
  return word !== null && left.length === 1 && left[0].length >= 2;
}

/**
 * Shaped like an invoice number: one glued token (no blank inside) with a digit, whose letter
 * runs are short (`RE-2024-0815`, `INV_000123`, `F2024-17`, not `Rechnung_2024` or `invoice`).
 */
export function numberShaped(token: string): boolean {
  const t = token.normalize('NFC');
  return /\p{N}/u.test(t) && !/\s/u.test(t) && !/\p{L}{5,}/u.test(t) && /^[\p{L}\p{N}]/u.test(t);
}

/** A whole file name that names an invoice that may not exist yet: worth waiting for (never one with a date in it, nor a device's name). */
export const looksLikeInvoiceNumber = (stem: string): boolean =>
  numberShaped(stem) && !notANumber(stem) && !deviceName(stem) && !dateTimeSpans(stem).length && /^[\p{L}\p{N}][\p{L}\p{N}\-_.]*$/u.test(stem.normalize('NFC'));

/**
 * The candidates of a name or subject that can be evidence: not a date, a year or a counter, nor
 * inside one (`2024` in `2024-11-25`, `0123` in `IMG_0123`), nothing that holds a day or its time
 * (`2024-11-25 0815`), and not the tail of a longer number-shaped token that adds digits before it
 * (`0815` in `RE-2024-0815` is a part of another number, whether or not the account has that one;
 * `RE-2024-0815` in `RE-2024-0815_v2` is not).
 */
export function evidenceCandidates(text: string): Candidate[] {
  const s = text.normalize('NFC');
  const all = tokenCandidates(s);
  const counters = [...s.matchAll(COUNTER)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const days = dateTimeSpans(s);
  const dates = all.filter((c) => notANumber(c.text));
  const within = (c: Candidate, o: { start?: number; end?: number }) => o.start! <= c.start! && c.end! <= o.end!;
  const overlaps = (c: Candidate, o: Span) => c.start! < o.end && o.start < c.end!;
  const tailOf = (c: Candidate, o: Candidate) => o.start! < c.start! && c.end! <= o.end! && /\p{N}/u.test(s.slice(o.start!, c.start!)) && numberShaped(o.text);
  const eligible = all.filter((c) => !counters.some((o) => overlaps(c, o)) && !days.some((o) => overlaps(c, o)) && !dates.some((o) => within(c, o)));
  return eligible.filter((c) => !eligible.some((o) => tailOf(c, o)));
}

export interface Hit {
  candidate: Candidate;
  invoice: FoundInvoice;
}

/**
 * The invoices the candidates name: per candidate the exact number, else the number ignoring
 * case, else ignoring case and separators (each tier only when nothing matched a stricter one);
 * a candidate inside a longer candidate that names an invoice gives way to it.
 */
export function hitsOf(candidates: Candidate[], found: FoundInvoice[]): Hit[] {
  const byKey = new Map<string, FoundInvoice[]>();
  for (const f of found) byKey.set(matchKey(f.invoiceNumber), [...(byKey.get(matchKey(f.invoiceNumber)) ?? []), f]);
  const hits = candidates.flatMap((c) => {
    const text = c.text.normalize('NFC');
    const loose = byKey.get(matchKey(text)) ?? [];
    const exact = loose.filter((f) => f.invoiceNumber === text);
    const folded = loose.filter((f) => f.invoiceNumber.toLowerCase() === text.toLowerCase());
    return (exact.length ? exact : folded.length ? folded : loose).map((invoice) => ({ candidate: c, invoice }));
  });
  const inside = (a: Candidate, b: Candidate) =>
    a.start !== undefined && b.start !== undefined && b.start <= a.start && a.end! <= b.end! && b.end! - b.start > a.end! - a.start;
  return hits.filter((h) => !hits.some((o) => inside(h.candidate, o.candidate)));
}

/** The distinct invoices of some hits, by id, with their numbers. */
export const invoicesOf = (hits: Hit[]): Map<string, string> => new Map(hits.map((h) => [h.invoice.id, h.invoice.invoiceNumber]));
