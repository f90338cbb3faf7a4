// English words for the intake reasons: the catalogue's own templates (domain/intake-reasons.ts),
// so the dashboard's English says what the API says, with dates, sizes and amounts formatted.
import { EINVOICE_NUMBER, EVIDENCE_WORDS, reasonTemplates } from '../../../domain/intake-reasons.ts';
import type { MatchedBy } from '../../../domain/intake.ts';

/** what each language gives: a template per reason code (plural forms as `_one`/`_other`), a phrase per kind of evidence, and how an awaited e-invoice number is named */
export interface ReasonWords {
  reason: Record<string, string>;
  evidence: Record<MatchedBy, string>;
  awaited: { einvoiceNumber: string };
}

export const reasonsEn: ReasonWords = { reason: reasonTemplates(), evidence: EVIDENCE_WORDS, awaited: { einvoiceNumber: EINVOICE_NUMBER } };
