// The reasons an import record gives (why a file failed, what it waits for), as codes with
// parameters. The API's `reason` is the English text made here from the template and the
// parameters (unchanged words for API clients); the record also keeps the code and parameters so
// the dashboard can word them in the reader's language (http/dashboard/i18n/reasons-*.ts) and
// format dates, sizes and amounts for them. Templates use i18next's `{{name}}` placeholders; a
// reason whose words are not in the catalogue (intake-reason-catalogue.ts) keeps only its text. Pure.
import type { MatchedBy } from './intake.ts';
import { INTAKE_REASONS, type ParamValues, type ReasonParamKind, type ReasonSpec } from './intake-reason-catalogue.ts';

export type ReasonCode = keyof typeof INTAKE_REASONS;
type Spec<C extends ReasonCode> = (typeof INTAKE_REASONS)[C];
type KindsOf<C extends ReasonCode> = Spec<C> extends { params: infer P } ? P : Record<never, never>;
export type ReasonParamsOf<C extends ReasonCode> = {
  -readonly [K in keyof KindsOf<C>]: KindsOf<C>[K] extends ReasonParamKind ? ParamValues[KindsOf<C>[K]] : never;
};
/** What the record keeps besides the text: parameters by name, and the notes (coded reasons) that follow the text. */
export type ReasonParams = { [name: string]: ParamValues[ReasonParamKind] | CodedReason[] | undefined; notes?: CodedReason[] };
export interface CodedReason {
  code: ReasonCode;
  params: ReasonParams;
}

/** A reason for people: its English text, and its code and parameters when the catalogue has its words. */
export interface IntakeReason {
  text: string;
  code?: ReasonCode;
  params?: ReasonParams;
}

export const isReasonCode = (code: unknown): code is ReasonCode => typeof code === 'string' && Object.hasOwn(INTAKE_REASONS, code);

/** The catalogue's templates as i18next keys (`code`, or `code_one`/`code_other`): the dashboard's English. */
export function reasonTemplates(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(INTAKE_REASONS).flatMap(([code, { en }]: [string, ReasonSpec]) =>
      typeof en === 'string'
        ? [[code, en]]
        : [
            [`${code}_one`, en.one],
            [`${code}_other`, en.other],
          ],
    ),
  );
}

/** How one parameter is written, by its kind. */
export type ParamWriter = <K extends ReasonParamKind>(kind: K, value: ParamValues[K]) => string;

/** Each parameter of a reason in words (an `undefined` value, from a row of another version, throws). */
export function reasonParamWords(r: CodedReason, write: ParamWriter): Record<string, string> {
  const words: Record<string, string> = {};
  for (const [name, kind] of Object.entries((INTAKE_REASONS[r.code] as ReasonSpec).params ?? {})) {
    const value = r.params[name];
    if (value === undefined) throw new Error(`reason ${r.code} has no ${name}`);
    words[name] = write(kind, value as ParamValues[typeof kind]);
  }
  return words;
}

/** "a, b or c" */
const orList = (xs: readonly string[]): string => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}` : (xs[0] ?? ''));
/** 1,210.50: an amount as the API's English reasons have always written it */
const plainAmount = (cents: number): string =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100).toLocaleString('en')}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
/** How each piece of evidence is named to people. */
export const EVIDENCE_WORDS: Record<MatchedBy, string> = {
  manual: 'by hand',
  invoice_id: 'by its name',
  invoice_number: 'by its name',
  einvoice: 'by its e-invoice',
  name_token: 'by a number in its name',
  subject: "by the e-mail's subject",
  pdf_text: 'by the invoice number and total in its text',
};

/** how an awaited e-invoice number is named among the alternatives */
export const EINVOICE_NUMBER = "the e-invoice's number {{number}}";

const ENGLISH: { [K in ReasonParamKind]: (v: ParamValues[K]) => string } = {
  text: (v) => v,
  number: (v) => String(v),
  bytes: (v) => `${v} bytes`,
  date: (v) => v,
  list: orList,
  amount: (v) => `${plainAmount(v.cents)}${v.currency ? ` ${v.currency}` : ''}`,
  evidence: (v) => EVIDENCE_WORDS[v],
  awaited: (v) => orList([v.name, ...v.einvoiceNumbers.map((number) => fillTemplate(EINVOICE_NUMBER, { number }))]),
};

/** Fills a template's `{{name}}` placeholders with the words given. */
const fillTemplate = (template: string, words: Record<string, string>): string => template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => words[k] ?? '');

/** The API's English words for a parameter. */
export const englishWord: ParamWriter = (kind, value) => (ENGLISH[kind] as (v: typeof value) => string)(value);

function englishText(r: CodedReason): string {
  const spec: ReasonSpec = INTAKE_REASONS[r.code];
  const words = reasonParamWords(r, englishWord);
  const template = typeof spec.en === 'string' ? spec.en : r.params.count === 1 ? spec.en.one : spec.en.other;
  return [fillTemplate(template, words), ...(r.params.notes ?? []).map(englishText)].join('; ');
}

/** A coded reason with its English text (the API's `reason`). */
export function intakeReason<C extends ReasonCode>(code: C, ...params: keyof ReasonParamsOf<C> extends never ? [] : [ReasonParamsOf<C>]): IntakeReason {
  const coded: CodedReason = { code, params: (params[0] ?? {}) as ReasonParams };
  return { text: englishText(coded), ...coded };
}

/** A reason's code and parameters as they are stored (`reason_code`, `reason_params` as JSON text); its text is `reason`. */
export const reasonColumns = (r: IntakeReason | null): [string | null, string | null] => (r?.code ? [r.code, JSON.stringify(r.params ?? {})] : [null, null]);
/** The stored code and parameters read back: a code this version does not know leaves the text alone. */
export const storedReason = (code: unknown, params: ReasonParams | null): { reasonCode: ReasonCode | null; reasonParams: ReasonParams | null } =>
  isReasonCode(code) ? { reasonCode: code, reasonParams: params ?? {} } : { reasonCode: null, reasonParams: null };

/** A reason the catalogue has no words for: English only. */
export const plainReason = (text: string): IntakeReason => ({ text });

/** A reason followed by notes ("…; note; note"): coded only when it and every note are. */
export function withNotes(main: IntakeReason, notes: readonly IntakeReason[]): IntakeReason {
  const text = [main.text, ...notes.map((n) => n.text)].join('; ');
  if (!notes.length) return main;
  if (!main.code || notes.some((n) => !n.code)) return { text };
  return { text, code: main.code, params: { ...main.params, notes: notes.map((n) => ({ code: n.code!, params: n.params ?? {} })) } };
}
