// The dashboard's language choice and formats (pure functions of the request and Intl).
import { describe, expect, it } from 'vitest';
import { de } from '../../src/http/dashboard/i18n/de.ts';
import { en } from '../../src/http/dashboard/i18n/en.ts';
import { formatter, isTimeZone, negotiate, translator } from '../../src/http/dashboard/i18n/i18n.ts';
import { nl } from '../../src/http/dashboard/i18n/nl.ts';
import { senderText } from '../../src/http/dashboard/locale.ts';

const leaves = (o: object, at = ''): string[] => Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' ? leaves(v, `${at}${k}.`) : [`${at}${k}`]));
const flat = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('dashboard languages', () => {
  it('every language has every key, none empty', () => {
    for (const catalog of [nl, de]) expect(leaves(catalog).sort()).toEqual(leaves(en).sort());
    for (const catalog of [en, nl, de])
      for (const k of leaves(catalog))
        expect(
          k.split('.').reduce((o: any, p) => o[p], catalog),
          k,
        ).not.toBe('');
  });

  it('the chosen language wins; else the best of Accept-Language by q; the region is kept for formats', () => {
    expect(negotiate('de', 'nl-NL,nl;q=0.9')).toEqual({ lang: 'de', locale: 'de-DE' });
    expect(negotiate(null, 'fr-FR,fr;q=0.9,nl-BE;q=0.8,en;q=0.5')).toEqual({ lang: 'nl', locale: 'nl-BE' });
    expect(negotiate(undefined, 'en;q=0.2, de-AT;q=0.7')).toEqual({ lang: 'de', locale: 'de-AT' });
    expect(negotiate(undefined, 'fr, *;q=0.1')).toEqual({ lang: 'en', locale: 'en-GB' });
    expect(negotiate('xx', '')).toEqual({ lang: 'en', locale: 'en-GB' });
    expect(negotiate(undefined, 'en-US;q=abc, nl;q=0')).toEqual({ lang: 'en', locale: 'en-GB' }); // junk q is 0, q=0 is refused
  });

  it('formats amounts, days, moments in a time zone, relative times and sizes', () => {
    const nlf = formatter('nl-NL', 'Europe/Amsterdam');
    expect(flat(nlf.amount(121050))).toBe('€ 1.210,50');
    expect(flat(formatter('de-DE', 'UTC').amount(121050))).toBe('1.210,50 €');
    expect(nlf.date('05-02-2026')).toBe('5 feb 2026');
    expect(nlf.date('2026-02-05')).toBe('5 feb 2026');
    expect(flat(nlf.time(new Date('2026-11-26T17:07:46Z')))).toBe('26 nov 2026, 18:07');
    expect(flat(formatter('en-US', 'America/New_York').time(new Date('2026-11-26T17:07:46Z')))).toBe('Nov 26, 2026, 12:07 PM');
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(formatter('en-GB', 'UTC').ago(new Date(now - 3 * 60_000), now)).toBe('3 minutes ago');
    expect(nlf.ago(new Date(now - 86_400_000), now)).toBe('gisteren');
    expect(flat(nlf.size(2_400))).toBe('2,4 kB');
    expect(flat(formatter('en-GB', 'UTC').size(3_200_000))).toBe('3.2 MB');
    expect(isTimeZone('Europe/Amsterdam')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('a sender reads as channel and name or address, never an internal id', () => {
    const t = translator('nl');
    expect(senderText(t, 'http', 'api:acc_123')).toBe('API (uw eigen systeem)');
    expect(senderText(t, 'http', 'dashboard:anna@example.com')).toBe('Upload in het dashboard door anna@example.com');
    expect(senderText(t, 'ftp', 'ftp_abc@192.0.2.7')).toBe('FTP van 192.0.2.7');
    expect(senderText(translator('de'), 'mail', 'Anna <anna@example.com>')).toBe('E-Mail von Anna <anna@example.com>');
  });
});
