// The one decision for every received file: which invoice its evidence names, or why it waits or
// is refused (docs/matching.md). Pure: the worker gathers the evidence (name, e-invoice, subject,
// the invoices they name), this weighs it. Conflict is a refusal, never a race.
import type { EinvoiceReading } from './document-facts.ts';
import { hitsOf, invoicesOf, matchKey, MIN_TOKEN_LENGTH, type Candidate, type FoundInvoice, type Hit } from './match-names.ts';
import { textHasAmount } from './pdf-text-evidence.ts';
import type { MatchedBy } from './intake.ts';
import { intakeReason, withNotes, type IntakeReason } from './intake-reasons.ts';
import type { Amount } from './intake-reason-catalogue.ts';

/** Evidence, strongest first; `manual` (a person) and documents sent by the API rank with the name. */
export const EVIDENCE_RANK: Record<MatchedBy, number> = { manual: 4, invoice_id: 4, invoice_number: 4, einvoice: 3, name_token: 2, subject: 1, pdf_text: 0 };
/** A document attached by weaker evidence than this is never replaced by a later file (only added where none is). */
export const REPLACING_RANK = 3;

export interface MatchEvidence {
  /** the whole name after normalisation (docs/matching.md, "Names") */
  name: string;
  /** the invoice the whole name is (its id or number), a deleted one, or none */
  byName: { invoiceId: string; invoiceNumber: string; by: 'invoice_id' | 'invoice_number' } | { deletedId: string } | undefined;
  /** the whole name is shaped like an invoice number that may not exist yet (worth waiting for) */
  nameIsNumber: boolean;
  /** the whole name is a scanner's or camera's (match-names.ts, deviceName): it names no invoice, the file's content must */
  nameIsDevice?: boolean;
  einvoices: EinvoiceReading[];
  nameTokens: Candidate[];
  subject?: {
    tokens: Candidate[];
    reply: boolean;
    text: string /** the message carried this many files (more than one): its subject is no evidence for any */;
    manyFiles?: number;
  };
  /** the live invoices any candidate (e-invoice numbers, tokens) names */
  found: FoundInvoice[];
  /** the PDF's text (the weakest evidence), read only when nothing else names any invoice */
  pdfText?: { text: string; numbers: Candidate[] };
}

export type MatchDecision =
  | {
      kind: 'attach';
      invoiceId: string;
      invoiceNumber: string;
      by: MatchedBy /** the note naming the evidence that pointed elsewhere and gave way */;
      overruled?: IntakeReason;
    }
  | { kind: 'refuse'; reason: IntakeReason }
  | {
      kind: 'wait';
      /** what it waits for: the name, then the e-invoice's numbers that name no invoice */
      awaits: { name: string; einvoiceNumbers: string[] };
      notes: IntakeReason[];
      /** nothing the file carries points at any invoice, existing or not: its text may */
      open: boolean;
      /** the name is a scanner's or camera's: the reasons say so instead of waiting for that name */
      device?: boolean;
    };

interface Claim {
  by: MatchedBy;
  invoiceId: string;
  invoiceNumber: string;
}

const REPLY = /^\s*((re|aw|antw|sv|vs|fw|fwd|wg|tr|rv|doorst|wtr|r)\s*(\[\d+\])?\s*:\s*)+/i;
/** A subject that answers or forwards another message ("AW: Rechnung 17"): evidence weaker still. */
export const isReplySubject = (subject: string): boolean => REPLY.test(subject);

export function decideMatch(e: MatchEvidence): MatchDecision {
  if (e.byName && 'deletedId' in e.byName) return { kind: 'refuse', reason: intakeReason('invoice_deleted', { invoice: e.byName.deletedId }) };
  const numbers = e.einvoices.flatMap((r) => (r.kind === 'invoice' ? [r.number] : []));
  const unread = e.einvoices.some((r) => r.kind === 'unread');
  const xmlHits = hitsOf(
    numbers.map((text) => ({ text })),
    e.found,
  );
  const missingXml = numbers.filter((n) => !xmlHits.some((h) => h.candidate.text === n));
  const claims: Claim[] = [
    ...(e.byName ? [{ by: e.byName.by, invoiceId: e.byName.invoiceId, invoiceNumber: e.byName.invoiceNumber }] : []),
    ...xmlHits.map((h) => claim('einvoice', h)),
    ...(e.byName ? [] : hitsOf(e.nameTokens, e.found).map((h) => claim('name_token', h))),
  ];
  const named = new Map(claims.map((c) => [c.invoiceId, c]));
  const notes = unread ? [intakeReason('note_einvoice_unread')] : [];
  // a credit note waiting for its own number says that the invoice it corrects is not where it goes
  for (const r of e.einvoices) {
    if (r.kind === 'invoice' && r.corrects?.length && missingXml.includes(r.number))
      notes.push(intakeReason('note_credit_note_corrects', { number: r.number, corrects: r.corrects }));
  }

  // the file's own evidence names two invoices: refuse, naming each
  if (named.size > 1) return { kind: 'refuse', reason: conflictReason(claims) };
  const reply = e.subject?.reply === true;
  const subjectSays = invoicesOf(e.subject ? hitsOf(e.subject.tokens, e.found) : []);
  if (e.subject?.manyFiles && subjectSays.size) {
    notes.push(
      intakeReason(reply ? 'note_reply_subject_many_files' : 'note_subject_many_files', { numbers: [...subjectSays.values()], files: e.subject.manyFiles }),
    );
  }
  const subjectNames = e.subject?.manyFiles ? new Map<string, string>() : subjectSays;

  if (named.size === 1) {
    const [target] = named.values();
    const best = claims.filter((c) => c.invoiceId === target.invoiceId).sort((a, b) => EVIDENCE_RANK[b.by] - EVIDENCE_RANK[a.by])[0];
    if (missingXml.length) {
      return {
        kind: 'refuse',
        reason: intakeReason(best.by === 'einvoice' ? 'einvoices_disagree' : 'name_and_unknown_einvoice', {
          number: target.invoiceNumber,
          numbers: missingXml,
        }),
      };
    }
    const nameOverruled = !e.byName && e.nameIsNumber && best.by === 'einvoice';
    const others = [...subjectNames].filter(([id]) => id !== target.invoiceId).map(([, n]) => n);
    if (others.length) {
      // a number in the name and a subject are alike weak: when they disagree nobody can tell
      if (best.by === 'name_token' && !e.subject!.reply) {
        return { kind: 'refuse', reason: intakeReason('name_and_subject_differ', { number: target.invoiceNumber, numbers: others }) };
      }
    }
    const totals = totalsConflict(e, target);
    if (totals) return { kind: 'refuse', reason: totals };
    return {
      kind: 'attach',
      invoiceId: target.invoiceId,
      invoiceNumber: target.invoiceNumber,
      by: best.by,
      overruled: overruledNote(best.by, nameOverruled ? e.name : undefined, others, reply),
    };
  }

  // nothing of the file's own names a live invoice: what it names that does not exist yet comes first
  const awaits = { name: e.name, einvoiceNumbers: missingXml };
  if (missingXml.length || e.nameIsNumber) {
    // a scanner's name is not what it waits for: its e-invoice's number is
    const device = e.nameIsDevice === true && !e.nameIsNumber;
    if (device) notes.push(intakeReason('note_einvoice_names_unknown', { numbers: missingXml }));
    if (subjectNames.size)
      notes.push(intakeReason(reply ? 'note_reply_subject_evidence_first' : 'note_subject_evidence_first', { numbers: [...subjectNames.values()] }));
    return { kind: 'wait', awaits, notes, open: false, ...(device ? { device } : {}) };
  }
  if (subjectNames.size > 1)
    return {
      kind: 'refuse',
      reason: intakeReason(e.subject?.reply ? 'reply_subject_names_several' : 'subject_names_several', { numbers: [...subjectNames.values()] }),
    };
  if (subjectNames.size === 1) {
    const [[invoiceId, invoiceNumber]] = subjectNames;
    return { kind: 'attach', invoiceId, invoiceNumber, by: 'subject' };
  }
  if (e.pdfText) {
    const text = byText(e.pdfText, e.found);
    if ('kind' in text) return text;
    if (text.note) notes.push(text.note);
  }
  if (!e.nameIsDevice) return { kind: 'wait', awaits, notes, open: true };
  // a device's name with nothing inside that could ever name an invoice: waiting cannot help
  const nothingInside = e.pdfText !== undefined && !e.pdfText.numbers.length && !numbers.length && !unread;
  if (nothingInside) return { kind: 'refuse', reason: withNotes(intakeReason('device_name_nothing_inside', { name: e.name }), notes) };
  return { kind: 'wait', awaits, notes, open: true, device: true };
}

/**
 * The text names exactly one existing invoice after a label, and that invoice's total is written
 * in it too: weak evidence confirmed. Anything less is a note on the waiting file.
 */
function byText(
  t: NonNullable<MatchEvidence['pdfText']>,
  found: FoundInvoice[],
): Extract<MatchDecision, { kind: 'attach' | 'refuse' }> | { note?: IntakeReason } {
  if (!t.text.trim()) return { note: intakeReason('note_pdf_no_text') };
  const hits = hitsOf(t.numbers, found);
  const named = [...new Map(hits.map((h) => [h.invoice.id, h.invoice])).values()];
  // two labelled numbers that are both invoices: a conflict, as two numbers anywhere else
  if (named.length > 1) return { kind: 'refuse', reason: intakeReason('pdf_text_names_several', { numbers: named.map((n) => n.invoiceNumber) }) };
  if (!named.length) return { note: t.numbers.length ? intakeReason('note_pdf_text_unknown', { numbers: t.numbers.map((c) => c.text) }) : undefined };
  const [invoice] = named;
  // another labelled number, not (yet) an invoice, may be this file's own invoice: never guess
  const others = t.numbers.filter(
    (c) => !hits.some((h) => h.candidate === c) && matchKey(c.text) !== matchKey(invoice.invoiceNumber) && c.text.length >= MIN_TOKEN_LENGTH,
  );
  if (others.length) return { note: intakeReason('note_pdf_text_also_unknown', { number: invoice.invoiceNumber, numbers: others.map((c) => c.text) }) };
  if (invoice.totalCents === undefined || !textHasAmount(t.text, invoice.totalCents)) {
    return { note: intakeReason('note_pdf_text_no_total', { number: invoice.invoiceNumber, total: { cents: invoice.totalCents ?? 0 } }) };
  }
  return { kind: 'attach', invoiceId: invoice.id, invoiceNumber: invoice.invoiceNumber, by: 'pdf_text' };
}

/**
 * The e-invoice that names the invoice states totals: one of them (the grand total BT-112 or the
 * amount due BT-115) must be the invoice's total, or the file is another version of the invoice.
 */
function totalsConflict(e: MatchEvidence, target: Claim): IntakeReason | undefined {
  const total = e.found.find((f) => f.id === target.invoiceId)?.totalCents;
  if (total === undefined) return undefined;
  const key = matchKey(target.invoiceNumber);
  for (const r of e.einvoices) {
    if (r.kind !== 'invoice' || matchKey(r.number) !== key) continue;
    const stated = [r.grandCents, r.dueCents].filter((c): c is number => c !== undefined);
    if (!stated.length || stated.includes(total)) continue;
    const stating = (cents: number): Amount => (r.currency ? { cents, currency: r.currency } : { cents });
    const said = { number: r.number, total: { cents: total } };
    // the same amount of the other sign: a credit note against an invoice of a positive total (or
    // the reverse); the advice is the sign, never "correct the total" alone
    const flipped = stated.find((c) => c === -total && c !== 0);
    if (flipped !== undefined) return intakeReason(r.creditNote ? 'einvoice_credit_note_sign' : 'einvoice_sign_differs', { ...said, grand: stating(flipped) });
    if (r.grandCents === undefined) return intakeReason('einvoice_due_differs', { ...said, due: stating(r.dueCents!) });
    if (r.dueCents === undefined || r.dueCents === r.grandCents) return intakeReason('einvoice_total_differs', { ...said, grand: stating(r.grandCents) });
    return intakeReason('einvoice_totals_differ', { ...said, grand: stating(r.grandCents), due: stating(r.dueCents) });
  }
  return undefined;
}

const claim = (by: MatchedBy, h: Hit): Claim => ({ by, invoiceId: h.invoice.id, invoiceNumber: h.invoice.invoiceNumber });

/** "The file's name says RE-1, but its e-invoice says RE-2; ..." (each invoice once, strongest evidence first) */
function conflictReason(claims: Claim[]): IntakeReason {
  const byInvoice = new Map<string, Claim>();
  for (const c of [...claims].sort((a, b) => EVIDENCE_RANK[b.by] - EVIDENCE_RANK[a.by])) if (!byInvoice.has(c.invoiceId)) byInvoice.set(c.invoiceId, c);
  const [first, ...rest] = [...byInvoice.values()];
  const sameKind = rest.every((c) => c.by === first.by);
  if (sameKind) return intakeReason('could_be_either', { numbers: [...byInvoice.values()].map((c) => c.invoiceNumber).sort() });
  if (rest.length === 1) {
    return intakeReason(first.by === 'einvoice' ? 'einvoice_and_name_differ' : 'name_and_einvoice_differ', {
      number: first.invoiceNumber,
      other: rest[0].invoiceNumber,
    });
  }
  return intakeReason('name_and_einvoices_name_several', { numbers: [...byInvoice.values()].map((c) => c.invoiceNumber) });
}

/** "Matched by …; overruled: its name …; the e-mail's subject, which names …" (undefined when nothing gave way) */
function overruledNote(by: MatchedBy, name: string | undefined, subject: string[], reply: boolean): IntakeReason | undefined {
  if (name !== undefined && subject.length)
    return intakeReason(reply ? 'note_overruled_name_reply_subject' : 'note_overruled_name_subject', { by, name, numbers: subject });
  if (name !== undefined) return intakeReason('note_overruled_name', { by, name });
  if (subject.length) return intakeReason(reply ? 'note_overruled_reply_subject' : 'note_overruled_subject', { by, numbers: subject });
  return undefined;
}
