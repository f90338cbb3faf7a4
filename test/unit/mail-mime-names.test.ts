import { describe, expect, it } from 'vitest';
import { cleanFileName, decodeEncodedWords, fileNameFromHeaders, headerFields, parseHeaderValue } from '../../src/channels/mail/mime-names.ts';

describe('RFC 2047 encoded-words', () => {
  it('decodes B and Q words in UTF-8 and legacy charsets', () => {
    expect(decodeEncodedWords('=?UTF-8?B?w6RyZ2VyLnBkZg==?=')).toBe('ärger.pdf');
    expect(decodeEncodedWords('=?ISO-8859-1?Q?Gr=F6=DFe_12.pdf?=')).toBe('Größe 12.pdf');
    expect(decodeEncodedWords('=?windows-1252?Q?Factuur_=80_12.pdf?=')).toBe('Factuur € 12.pdf');
  });

  it('joins adjacent words without the white space between them, also a character split over two words', () => {
    expect(decodeEncodedWords('=?utf-8?B?w6Q=?= =?utf-8?B?w7Y=?=.pdf')).toBe('äö.pdf');
    // € is E2 82 AC: split after the second byte
    expect(decodeEncodedWords('=?utf-8?B?4oI=?=\r\n =?utf-8?B?rA==?=.pdf')).toBe('€.pdf');
  });

  it('keeps plain text and the white space between a word and plain text', () => {
    expect(decodeEncodedWords('Invoice =?utf-8?Q?M=C3=A4rz?= 2026.pdf')).toBe('Invoice März 2026.pdf');
    expect(decodeEncodedWords('no words here.pdf')).toBe('no words here.pdf');
  });

  it('accepts a language tag (RFC 2231 section 5) and falls back to latin1 for an unknown charset', () => {
    expect(decodeEncodedWords('=?utf-8*nl?Q?caf=C3=A9.pdf?=')).toBe('café.pdf');
    expect(decodeEncodedWords('=?x-unknown?Q?caf=E9.pdf?=')).toBe('café.pdf');
  });
});

describe('RFC 2231 parameters', () => {
  it('decodes charset and percent-encoding', () => {
    expect(parseHeaderValue("attachment; filename*=iso-8859-1'de'%E4rger.pdf").params.filename).toBe('ärger.pdf');
    expect(parseHeaderValue("attachment; filename*=UTF-8''%E2%82%AC%20100.pdf").params.filename).toBe('€ 100.pdf');
  });

  it('joins numbered continuations in order, extended and plain ones mixed, folded over lines', () => {
    const v = parseHeaderValue(`attachment;\r\n filename*1="very long name ";\r\n filename*0*=utf-8''%C3%84%C3%96%20;\r\n filename*2=rest.pdf`);
    expect(v.value).toBe('attachment');
    expect(v.params.filename).toBe('ÄÖ very long name rest.pdf');
  });

  it('reads the euro sign of a windows-1252 or Latin-1 label as windows-1252', () => {
    expect(parseHeaderValue("attachment; filename*=windows-1252''Factuur%20%80%2012.pdf").params.filename).toBe('Factuur € 12.pdf');
    expect(parseHeaderValue("attachment; filename*=iso-8859-1''%80%2013.pdf").params.filename).toBe('€ 13.pdf');
  });

  it('a continuation split inside a multi-byte character still decodes', () => {
    expect(parseHeaderValue("attachment; filename*0*=utf-8''%C3; filename*1*=%A4.pdf").params.filename).toBe('ä.pdf');
  });

  it('reads plain and quoted parameters, with escaped quotes and semicolons inside quotes', () => {
    const v = parseHeaderValue('application/PDF; name="a \\"b\\"; c.pdf"; charset=us-ascii');
    expect(v.value).toBe('application/pdf');
    expect(v.params).toEqual({ name: 'a "b"; c.pdf', charset: 'us-ascii' });
  });

  it('decodes encoded-words where clients put them against the rules (inside quoted parameters)', () => {
    expect(parseHeaderValue('attachment; filename="=?UTF-8?B?w6RyZ2VyLnBkZg==?="').params.filename).toBe('ärger.pdf');
  });
});

describe('file names', () => {
  it('prefers Content-Disposition filename, then Content-Type name', () => {
    expect(fileNameFromHeaders({ contentDisposition: 'attachment; filename="a.pdf"', contentType: 'application/pdf; name="b.pdf"' })).toBe('a.pdf');
    expect(fileNameFromHeaders({ contentDisposition: 'inline', contentType: 'application/pdf; name="b.pdf"' })).toBe('b.pdf');
    expect(fileNameFromHeaders({ contentDisposition: 'inline' })).toBeUndefined();
  });

  it('strips directory parts and control characters, and normalises to NFC', () => {
    expect(cleanFileName('C:\\fakepath\\INV-1.pdf')).toBe('INV-1.pdf');
    expect(cleanFileName('../../etc/INV-2.pdf')).toBe('INV-2.pdf');
    expect(cleanFileName('INV\u0000-3\r\n.pdf')).toBe('INV-3.pdf');
    expect(cleanFileName('Cafe\u0301.pdf')).toBe('Café.pdf');
    expect(cleanFileName('Cafe\u0301.pdf')).toHaveLength(8);
    expect(cleanFileName('  ')).toBeUndefined();
    expect(cleanFileName('..')).toBeUndefined();
    expect(cleanFileName(undefined)).toBeUndefined();
  });

  it('splits a raw header block into unfolded fields', () => {
    const f = headerFields('Content-Type: application/pdf;\r\n name="x.pdf"\r\nContent-Disposition: attachment\r\n\r\n');
    expect(f.get('content-type')).toEqual(['application/pdf; name="x.pdf"']);
    expect(f.get('content-disposition')).toEqual(['attachment']);
  });
});

describe('charsets', () => {
  it('decodes windows-1252 and latin1 labels with the euro sign and quotes, and 8-bit "ASCII" as UTF-8', async () => {
    const { decodeCharset } = await import('../../src/channels/mail/mime-names.ts');
    expect(decodeCharset(Buffer.from([0x80, 0x20, 0xe4, 0x93, 0x94]), 'ISO-8859-1')).toBe('€ ä“”');
    expect(decodeCharset(Buffer.from('ä', 'utf8'), 'us-ascii')).toBe('ä');
    expect(decodeCharset(Buffer.from([0xe4]), 'us-ascii')).toBe('ä');
    expect(decodeCharset(Buffer.from([0xc4, 0xe5]), 'koi8-r')).toBe('дЕ');
  });
});
