// Which language and formats a page is in. The words come from i18next (en, nl, de); numbers,
// amounts, dates, times, relative times and sizes from Intl in the reader's locale and the time
// zone their browser sent. The language is, in order: the one the person chose (kept in their
// profile), the one chosen on the sign-in page (a cookie), the browser's Accept-Language, English.
import i18next, { type TFunction } from 'i18next';
import { de } from './de.ts';
import { en } from './en.ts';
import { nl } from './nl.ts';

export const LANGUAGES = ['en', 'nl', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const isLanguage = (v: unknown): v is Language => LANGUAGES.includes(v as Language);
/** the locale for formats when the browser names none of the language's regions */
const DEFAULT_LOCALE: Record<Language, string> = { en: 'en-GB', nl: 'nl-NL', de: 'de-DE' };
/** amounts carry no currency in the API; the service invoices in euros */
export const CURRENCY = 'EUR';

const i18n = i18next.createInstance();
await i18n.init({
  resources: { en: { translation: en }, nl: { translation: nl }, de: { translation: de } },
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  // templates escape what they print; escaping here too would show &amp;
  interpolation: { escapeValue: false },
  showSupportNotice: false,
} as Parameters<typeof i18n.init>[0]);

/** Accept-Language entries, best first: [tag, q] */
function accepted(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((e) => e.q > 0 && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(e.tag))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag);
}

/** The language and the locale for formats (a region the browser asked for, when it fits the language). */
export function negotiate(chosen: string | undefined | null, acceptLanguage: string | undefined): { lang: Language; locale: string } {
  const tags = accepted(acceptLanguage);
  const lang: Language = isLanguage(chosen) ? chosen : (tags.map((t) => t.split('-')[0].toLowerCase()).find(isLanguage) ?? 'en');
  const regional = tags.find((t) => t.toLowerCase().startsWith(`${lang}-`));
  let locale = DEFAULT_LOCALE[lang];
  if (regional) {
    try {
      locale = Intl.getCanonicalLocales(regional)[0];
    } catch {
      // not a locale Intl knows: keep the default
    }
  }
  return { lang, locale };
}

export const isTimeZone = (tz: unknown): tz is string => {
  if (typeof tz !== 'string' || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export type Translate = TFunction;
export const translator = (lang: Language): Translate => i18n.getFixedT(lang);

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** Formats in the reader's locale and time zone. */
export function formatter(locale: string, timeZone: string) {
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: CURRENCY });
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  const day = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const kb = new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilobyte', maximumFractionDigits: 1 });
  const mb = new Intl.NumberFormat(locale, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 });
  const bytes = new Intl.NumberFormat(locale, { style: 'unit', unit: 'byte', unitDisplay: 'long' });
  return {
    locale,
    timeZone,
    amount: (cents: number) => money.format(cents / 100),
    /** a moment: date and time in the reader's time zone */
    time: (d: Date | string | null | undefined) => (d ? dateTime.format(new Date(d)) : ''),
    /** a calendar day (DD-MM-YYYY from the API, or YYYY-MM-DD), the same day everywhere */
    date: (s: string | null | undefined) => {
      const m = s ? (/^(\d{2})-(\d{2})-(\d{4})$/.exec(s) ?? /^(\d{4})-(\d{2})-(\d{2})/.exec(s)) : null;
      if (!m) return s ?? '';
      const [y, mo, d] = m[1].length === 4 ? [m[1], m[2], m[3]] : [m[3], m[2], m[1]];
      return day.format(new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d))));
    },
    /** "3 minutes ago", "yesterday" */
    ago: (d: Date | string | null | undefined, now = Date.now()) => {
      if (!d) return '';
      const seconds = (new Date(d).getTime() - now) / 1000;
      const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['second', 1];
      return relative.format(Math.round(seconds / size), unit);
    },
    /** kB and MB in decimal units, as file managers show them */
    size: (n: number) => (n < 1000 ? bytes.format(n) : n < 1_000_000 ? kb.format(n / 1000) : mb.format(n / 1_000_000)),
    number: (n: number) => n.toLocaleString(locale),
  };
}
export type Formatter = ReturnType<typeof formatter>;
