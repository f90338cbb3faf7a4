// An import record's reason in the reader's language: its code's template (i18n/reasons-*.ts)
// with the parameters formatted for them (dates in their time zone, sizes in kB/MB, amounts with
// the currency, alternatives joined by their language's "or"), then its notes. A record with no
// code (written before codes, or a reason the catalogue has no words for) shows its English text.
import { isReasonCode, reasonParamWords, type CodedReason, type ParamWriter } from '../../domain/intake-reasons.ts';
import type { ParamValues, ReasonParamKind } from '../../domain/intake-reason-catalogue.ts';
import type { ImportRecord } from '../../domain/intake.ts';
import { CURRENCY, type Formatter, type Translate } from './i18n/i18n.ts';

type WithReason = Pick<ImportRecord, 'reason' | 'reasonCode' | 'reasonParams'>;

function writer(t: Translate, fmt: Formatter): ParamWriter {
  const or = new Intl.ListFormat(fmt.locale, { type: 'disjunction' });
  const byKind: { [K in ReasonParamKind]: (v: ParamValues[K]) => string } = {
    text: (v) => v,
    number: fmt.number,
    bytes: fmt.size,
    date: fmt.time,
    list: (v) => or.format(v),
    amount: ({ cents, currency }) => new Intl.NumberFormat(fmt.locale, { style: 'currency', currency: currency ?? CURRENCY }).format(cents / 100),
    evidence: (v) => t(`evidence.${v}`),
    awaited: ({ name, einvoiceNumbers }) => or.format([name, ...einvoiceNumbers.map((number) => t('awaited.einvoiceNumber', { number }))]),
  };
  return (kind, value) => (byKind[kind] as (v: typeof value) => string)(value);
}

function words(t: Translate, write: ParamWriter, r: CodedReason): string {
  const count = typeof r.params.count === 'number' ? { count: r.params.count } : {};
  const text = t(`reason.${r.code}`, { ...reasonParamWords(r, write), ...count });
  return [text, ...(r.params.notes ?? []).map((n) => words(t, write, n))].join('; ');
}

export function reasonWords(t: Translate, fmt: Formatter, r: WithReason): string {
  if (!isReasonCode(r.reasonCode) || !r.reasonParams) return r.reason ?? '';
  try {
    return words(t, writer(t, fmt), { code: r.reasonCode, params: r.reasonParams });
  } catch {
    // parameters this version cannot read (a currency Intl does not know, a missing one): the text
    return r.reason ?? '';
  }
}
