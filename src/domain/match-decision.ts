// The one decision for every received file: which invoice its evidence names, or why it waits or
// is refused (docs/matching.md). Pure: the worker gathers the evidence (name, e-invoice, subject,
// the invoices they name), this weighs it. Conflict is a refusal, never a race.
import type { EinvoiceReading } from './einvoice.ts';
import { hitsOf, invoicesOf, matchKey, type Candidate, type FoundInvoice, type Hit } from './match-names.ts';
import { textHasAmount } from './pdf-text-evidence.ts';
import type { MatchedBy } from './intake.ts';

/** Evidence, strongest first; `manual` (a person) and documents sent by the API rank with the name. */
export const EVIDENCE_RANK: Record<MatchedBy, number> = { manual: 4, invoice_id: 4, invoice_number: 4, einvoice: 3, name_token: 2, subject: 1, pdf_text: 0 };
/** A document attached by weaker evidence than this is never replaced by a later file (only added where none is). */
export const REPLACING_RANK = 3;

/** How each piece of evidence is named to people. */
export const EVIDENCE_WORDS: Record<MatchedBy, string> = {
  manual: 'by hand', invoice_id: 'by its name', invoice_number: 'by its name', einvoice: 'by its e-invoice', name_token: 'by a number in its name', subject: "by the e-mail's subject",
  pdf_text: 'by the invoice number and total in its text',
};

export interface MatchEvidence {
  /** the whole name after normalisation (docs/matching.md, "Names") */
  name: string;
  /** the invoice the whole name is (its id or number), a deleted one, or none */
  byName: { invoiceId: string; invoiceNumber: string; by: 'invoice_id' | 'invoice_number' } | { deletedId: string } | undefined;
  /** the whole name is shaped like an invoice number that may not exist yet (worth waiting for) */
  nameIsNumber: boolean;
  einvoices: EinvoiceReading[];
  nameTokens: Candidate[];
  subject?: { tokens: Candidate[]; reply: boolean; text: string; /** why it is not evidence for this file */ notEvidence?: string };
  /** the live invoices any candidate (e-invoice numbers, tokens) names */
  found: FoundInvoice[];
  /** the PDF's text (the weakest evidence), read only when nothing else names any invoice */
  pdfText?: { text: string; numbers: Candidate[] };
}

export type MatchDecision =
  | { kind: 'attach'; invoiceId: string; invoiceNumber: string; by: MatchedBy; /** the evidence that pointed elsewhere and gave way, in words */ overruled: string[] }
  | { kind: 'refuse'; reason: string }
  | {
      kind: 'wait';
      /** what it waits for, in words ("scan1 or the e-invoice's number 2026-9") */
      awaits: string;
      notes: string[];
      /** nothing the file carries points at any invoice, existing or not: its text may */
      open: boolean;
    };

interface Claim {
  by: MatchedBy;
  invoiceId: string;
  invoiceNumber: string;
}

const REPLY = /^\s*((re|aw|antw|sv|vs|fw|fwd|wg|tr|rv|doorst|wtr|r)\s*(\[\d+\])?\s*:\s*)+/i;
/** A subject that answers or forwards another message ("AW: Rechnung 17"): evidence weaker still. */
export const isReplySubject = (subject: string): boolean => REPLY.test(subject);

const list = (xs: string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : xs[0]);
const said = (c: Claim) => `${c.by === 'einvoice' ? 'its e-invoice' : 'its name'} says ${c.invoiceNumber}`;

export function decideMatch(e: MatchEvidence): MatchDecision {
  if (e.byName && 'deletedId' in e.byName) return { kind: 'refuse', reason: `The invoice ${e.byName.deletedId} was deleted` };
  const numbers = e.einvoices.flatMap((r) => (r.kind === 'invoice' ? [r.number] : []));
  const unread = e.einvoices.some((r) => r.kind === 'unread');
  const xmlHits = hitsOf(numbers.map((text) => ({ text })), e.found);
  const missingXml = numbers.filter((n) => !xmlHits.some((h) => h.candidate.text === n));
  const claims: Claim[] = [
    ...(e.byName ? [{ by: e.byName.by, invoiceId: e.byName.invoiceId, invoiceNumber: e.byName.invoiceNumber }] : []),
    ...xmlHits.map((h) => claim('einvoice', h)),
    ...(e.byName ? [] : hitsOf(e.nameTokens, e.found).map((h) => claim('name_token', h))),
  ];
  const named = new Map(claims.map((c) => [c.invoiceId, c]));
  const notes = unread ? ['an e-invoice XML was found but its number could not be read'] : [];

  // the file's own evidence names two invoices: refuse, naming each
  if (named.size > 1) return { kind: 'refuse', reason: conflictReason(claims) };
  const subjectWords = e.subject?.reply ? "the reply's subject" : "the e-mail's subject";
  const subjectSays = invoicesOf(e.subject ? hitsOf(e.subject.tokens, e.found) : []);
  if (e.subject?.notEvidence && subjectSays.size) notes.push(`${subjectWords} names ${list([...subjectSays.values()])}, but ${e.subject.notEvidence}`);
  const subjectNames = e.subject?.notEvidence ? new Map<string, string>() : subjectSays;

  if (named.size === 1) {
    const [target] = named.values();
    const best = claims.filter((c) => c.invoiceId === target.invoiceId).sort((a, b) => EVIDENCE_RANK[b.by] - EVIDENCE_RANK[a.by])[0];
    if (missingXml.length) {
      return { kind: 'refuse', reason: `The file's ${best.by === 'einvoice' ? 'e-invoice also' : 'name'} says ${target.invoiceNumber}, but its e-invoice says ${list(missingXml)}, which is no invoice of this account; rename the file or assign it` };
    }
    const overruled: string[] = [];
    if (!e.byName && e.nameIsNumber && best.by === 'einvoice') overruled.push(`its name ${e.name}, which names no invoice`);
    const others = [...subjectNames].filter(([id]) => id !== target.invoiceId).map(([, n]) => n);
    if (others.length) {
      // a number in the name and a subject are alike weak: when they disagree nobody can tell
      if (best.by === 'name_token' && !e.subject!.reply) {
        return { kind: 'refuse', reason: `The file's name says ${target.invoiceNumber}, but the e-mail's subject says ${list(others)}; rename the file or assign it` };
      }
      overruled.push(`${subjectWords}, which names ${list(others)}`);
    }
    const totals = totalsConflict(e, target);
    if (totals) return { kind: 'refuse', reason: totals };
    return { kind: 'attach', invoiceId: target.invoiceId, invoiceNumber: target.invoiceNumber, by: best.by, overruled };
  }

  // nothing of the file's own names a live invoice: what it names that does not exist yet comes first
  const awaited = [e.name, ...missingXml.map((n) => `the e-invoice's number ${n}`)];
  if (missingXml.length || e.nameIsNumber) {
    if (subjectNames.size) notes.push(`${subjectWords} names ${list([...subjectNames.values()])}, but the file's own evidence comes first`);
    return { kind: 'wait', awaits: list(awaited), notes, open: false };
  }
  if (subjectNames.size > 1) return { kind: 'refuse', reason: `${capital(subjectWords)} names ${list([...subjectNames.values()])}; rename the file to the invoice's number or assign it` };
  if (subjectNames.size === 1) {
    const [[invoiceId, invoiceNumber]] = subjectNames;
    return { kind: 'attach', invoiceId, invoiceNumber, by: 'subject', overruled: [] };
  }
  if (e.pdfText) {
    const text = byText(e.pdfText, e.found);
    if ('invoiceId' in text) return text;
    if (text.note) notes.push(text.note);
  }
  return { kind: 'wait', awaits: list(awaited), notes, open: true };
}

/**
 * The text names exactly one existing invoice after a label, and that invoice's total is written
 * in it too: weak evidence confirmed. Anything less is a note on the waiting file.
 */
function byText(t: NonNullable<MatchEvidence['pdfText']>, found: FoundInvoice[]): Extract<MatchDecision, { kind: 'attach' }> | { note?: string } {
  if (!t.text.trim()) return { note: 'the PDF has no text to read (a scan?), so only its name could say which invoice it is' };
  const named = [...new Map(hitsOf(t.numbers, found).map((h) => [h.invoice.id, h.invoice])).values()];
  if (named.length > 1) return { note: `the PDF's text names invoices ${list(named.map((n) => n.invoiceNumber))}` };
  if (!named.length) return { note: t.numbers.length ? `the PDF's text says invoice ${list(t.numbers.map((c) => c.text))}, which is no invoice of this account` : undefined };
  const [invoice] = named;
  if (invoice.totalCents === undefined || !textHasAmount(t.text, invoice.totalCents)) {
    return { note: `the PDF's text says invoice ${invoice.invoiceNumber}, but not its total ${plain(invoice.totalCents ?? 0)}` };
  }
  return { kind: 'attach', invoiceId: invoice.id, invoiceNumber: invoice.invoiceNumber, by: 'pdf_text', overruled: [] };
}

const plain = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100).toLocaleString('en')}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/**
 * The e-invoice that names the invoice states totals: one of them (the grand total BT-112 or the
 * amount due BT-115) must be the invoice's total, or the file is another version of the invoice.
 */
function totalsConflict(e: MatchEvidence, target: Claim): string | undefined {
  const total = e.found.find((f) => f.id === target.invoiceId)?.totalCents;
  if (total === undefined) return undefined;
  const key = matchKey(target.invoiceNumber);
  for (const r of e.einvoices) {
    if (r.kind !== 'invoice' || matchKey(r.number) !== key) continue;
    const stated = [r.grandCents, r.dueCents].filter((c): c is number => c !== undefined);
    if (!stated.length || stated.includes(total)) continue;
    const currency = r.currency ? ` ${r.currency}` : '';
    const due = r.dueCents !== undefined && r.dueCents !== r.grandCents ? `, amount due ${plain(r.dueCents)}${currency}` : '';
    const grand = r.grandCents !== undefined ? `a total of ${plain(r.grandCents)}${currency}` : `an amount due of ${plain(r.dueCents!)}${currency}`;
    return `The e-invoice says invoice ${r.number} with ${grand}${due}; the invoice's total is ${plain(total)}: correct the invoice's total or send the matching file`;
  }
  return undefined;
}

const claim = (by: MatchedBy, h: Hit): Claim => ({ by, invoiceId: h.invoice.id, invoiceNumber: h.invoice.invoiceNumber });
const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

/** "The file's name says RE-1, but its e-invoice says RE-2; ..." (each invoice once, strongest evidence first) */
function conflictReason(claims: Claim[]): string {
  const byInvoice = new Map<string, Claim>();
  for (const c of [...claims].sort((a, b) => EVIDENCE_RANK[b.by] - EVIDENCE_RANK[a.by])) if (!byInvoice.has(c.invoiceId)) byInvoice.set(c.invoiceId, c);
  const [first, ...rest] = [...byInvoice.values()];
  const sameKind = rest.every((c) => c.by === first.by);
  if (sameKind) return `The file could be invoice ${list([...byInvoice.values()].map((c) => c.invoiceNumber).sort())}; rename it or assign it`;
  return `The file's ${said(first).replace(/^its /, '')}, but ${rest.map(said).join(', and ')}; rename the file or assign it`;
}
