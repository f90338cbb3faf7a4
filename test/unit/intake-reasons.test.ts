import { describe, expect, it } from 'vitest';
import {
  englishWord,
  type IntakeReason,
  intakeReason,
  plainReason,
  reasonParamWords,
  withNotes,
  type ReasonCode,
  type ReasonParams,
} from '../../src/domain/intake-reasons.ts';
import { INTAKE_REASONS, type ParamValues, type ReasonParamKind } from '../../src/domain/intake-reason-catalogue.ts';
import { formatter, translator } from '../../src/http/dashboard/i18n/i18n.ts';
import { reasonsDe } from '../../src/http/dashboard/i18n/reasons-de.ts';
import { reasonsEn } from '../../src/http/dashboard/i18n/reasons-en.ts';
import { reasonsNl } from '../../src/http/dashboard/i18n/reasons-nl.ts';
import { reasonWords } from '../../src/http/dashboard/reason-words.ts';

const SAMPLE: { [K in ReasonParamKind]: ParamValues[K] } = {
  text: 'RE-2026-001',
  number: 3,
  bytes: 5_242_880,
  date: '2026-11-26T17:07:46.132Z',
  list: ['RE-1', 'RE-2'],
  amount: { cents: 121_050, currency: 'EUR' },
  evidence: 'einvoice',
  awaited: { name: 'scan-7', einvoiceNumbers: ['RE-9', 'RE-10'] },
};
const CODES = Object.keys(INTAKE_REASONS) as ReasonCode[];
const kindsOf = (code: ReasonCode): Record<string, ReasonParamKind> =>
  'params' in INTAKE_REASONS[code] ? (INTAKE_REASONS[code] as { params: Record<string, ReasonParamKind> }).params : {};
const sample = (code: ReasonCode, count?: number): ReasonParams =>
  Object.fromEntries(Object.entries(kindsOf(code)).map(([name, kind]) => [name, name === 'count' && count !== undefined ? count : SAMPLE[kind]]));
const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
/** any code with any parameters (the catalogue's types hold each code to its own) */
const anyReason = intakeReason as (code: ReasonCode, params?: ReasonParams) => IntakeReason;
const coded = (code: ReasonCode, params: ReasonParams) => ({ reason: anyReason(code, params).text, reasonCode: code, reasonParams: params });

describe('intake reasons', () => {
  it('every code has Dutch and German words with the same placeholders as the English, and every kind of evidence a phrase', () => {
    for (const [lang, words] of [
      ['nl', reasonsNl],
      ['de', reasonsDe],
    ] as const) {
      expect(Object.keys(words.reason).sort(), lang).toEqual(Object.keys(reasonsEn.reason).sort());
      for (const [key, en] of Object.entries(reasonsEn.reason)) expect(placeholders(words.reason[key]), `${lang} ${key}`).toEqual(placeholders(en));
      expect(Object.keys(words.evidence).sort(), lang).toEqual(Object.keys(reasonsEn.evidence).sort());
      expect(placeholders(words.awaited.einvoiceNumber), lang).toEqual(['number']);
    }
    // each template names each of its parameters
    for (const code of CODES)
      for (const key of Object.keys(reasonsEn.reason).filter((k) => [code, `${code}_one`, `${code}_other`].includes(k))) {
        expect(
          placeholders(reasonsEn.reason[key]).filter((p, i, all) => all.indexOf(p) === i),
          key,
        ).toEqual(Object.keys(kindsOf(code)).sort());
      }
  });

  it("the dashboard's English template, given the API's words, is the API's reason text", () => {
    const t = translator('en');
    for (const code of CODES)
      for (const count of [1, 2]) {
        const params = sample(code, count);
        const reason = anyReason(code, params);
        const words = reasonParamWords({ code, params }, englishWord);
        expect(t(`reason.${code}`, { ...words, ...(typeof params.count === 'number' ? { count: params.count } : {}) }), code).toBe(reason.text);
      }
  });

  it('keeps the texts the API has always given', () => {
    expect(intakeReason('file_too_large', { max: 5_242_880 }).text).toBe(
      'The file is larger than 5242880 bytes; send a smaller PDF (scanned at a lower resolution, or compressed)',
    );
    expect(intakeReason('waiting', { awaits: { name: 'scan-7', einvoiceNumbers: ['RE-9', 'RE-10'] }, until: '2026-11-26T17:07:46.132Z' }).text).toBe(
      "Waiting for an invoice with id or number scan-7, the e-invoice's number RE-9 or the e-invoice's number RE-10 until 2026-11-26T17:07:46.132Z",
    );
    expect(
      intakeReason('einvoice_totals_differ', {
        number: 'A-1',
        grand: { cents: 121_050, currency: 'EUR' },
        due: { cents: 100_000, currency: 'EUR' },
        total: { cents: 121_000 },
      }).text,
    ).toBe(
      "The e-invoice says invoice A-1 with a total of 1,210.50 EUR, amount due 1,000.00 EUR; the invoice's total is 1,210.00: correct the invoice's total or send the matching file",
    );
    expect(intakeReason('unpacked', { count: 1 }).text).toBe('Unpacked into 1 file');
    expect(intakeReason('document_kept', { number: 'A-1', filename: 'A-1.pdf', keptBy: 'invoice_number', by: 'subject' }).text).toBe(
      "Invoice A-1 already has A-1.pdf, attached by its name; this file was found by the e-mail's subject, which does not replace it: send it as A-1.pdf or assign it to replace the document",
    );
  });

  it('notes follow the reason; one without words leaves the whole reason as text', () => {
    const noted = withNotes(intakeReason('no_invoice', { awaits: { name: 'scan1', einvoiceNumbers: [] } }), [intakeReason('note_pdf_no_text')]);
    expect(noted.text).toBe('No invoice with id or number scan1; the PDF has no text to read (a scan?), so only its name could say which invoice it is');
    expect(noted.params?.notes).toEqual([{ code: 'note_pdf_no_text', params: {} }]);
    const mixed = withNotes(intakeReason('no_invoice', { awaits: { name: 'scan1', einvoiceNumbers: [] } }), [plainReason('something else')]);
    expect(mixed).toEqual({ text: 'No invoice with id or number scan1; something else' });
  });

  it('words a reason in the reader’s language, with dates in their time zone and amounts in their format', () => {
    const nl = translator('nl');
    const fmt = formatter('nl-NL', 'Europe/Amsterdam');
    const waiting = withNotes(intakeReason('waiting', { awaits: { name: 'F-1', einvoiceNumbers: ['F-2'] }, until: '2026-11-26T17:07:46.132Z' }), [
      intakeReason('note_pdf_no_text'),
    ]);
    const text = reasonWords(nl, fmt, { reason: waiting.text, reasonCode: waiting.code, reasonParams: waiting.params });
    expect(text).toBe(
      'Wacht tot 26 nov 2026, 18:07 op een factuur met id of nummer F-1 of het nummer F-2 uit de e-factuur; de pdf heeft geen tekst om te lezen (een scan?), dus alleen de naam kon zeggen welke factuur het is',
    );
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    const totals = intakeReason('einvoice_total_differs', { number: 'A-1', grand: { cents: 121_050, currency: 'EUR' }, total: { cents: 121_000 } });
    expect(
      reasonWords(translator('de'), formatter('de-DE', 'Europe/Berlin'), { reason: totals.text, reasonCode: totals.code, reasonParams: totals.params }),
    ).toBe(
      'Die E-Rechnung nennt Rechnung A-1 mit der Summe 1.210,50\u00a0€; die Rechnung hat die Summe 1.210,00\u00a0€: korrigieren Sie die Summe der Rechnung oder senden Sie die passende Datei',
    );
    expect(reasonWords(nl, fmt, coded('file_too_large', { max: 5_242_880 }))).toBe(
      'Het bestand is groter dan 5,2 MB; stuur een kleinere pdf (gescand met een lagere resolutie, of gecomprimeerd)',
    );
  });

  it('shows the English text of a record without a code, or with parameters it cannot read', () => {
    const fmt = formatter('nl-NL', 'UTC');
    expect(reasonWords(translator('nl'), fmt, { reason: 'Waiting for an invoice', reasonCode: null, reasonParams: null })).toBe('Waiting for an invoice');
    expect(reasonWords(translator('nl'), fmt, { reason: 'The file is larger than 1 bytes', reasonCode: 'file_too_large', reasonParams: {} })).toBe(
      'The file is larger than 1 bytes',
    );
  });
});
