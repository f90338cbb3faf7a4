// A document's Base64 content kept out of the parsed JSON body (src/http/lifted-content.ts): the body
// parses to what JSON.parse gives with the content behind a marker, and the marked bytes decode to
// exactly what decodeBase64 gives for the parsed string, for the ways clients write Base64.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBase64, decodeBase64Bytes } from '../../src/domain/base64.ts';
import { parse as parseQuery } from 'node:querystring';
import { LIFT_MIN_CHARS, liftContent, liftFormContent } from '../../src/http/lifted-content.ts';

/** Parses `body` as the server does; the parsed body with the marked content put back as decoded bytes. */
function parseLifted(body: string) {
  const lifted = liftContent(Buffer.from(body));
  if (!lifted) return undefined;
  const value = JSON.parse(lifted.text);
  const resolve = (v: any): any =>
    typeof v === 'string' && lifted.lifted.has(v) ? { bytes: decodeBase64Bytes(lifted.lifted.get(v)!.text), chars: lifted.lifted.get(v)!.chars }
      : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)])) : v;
  return resolve(value);
}

const sizes = [49_152, 50_000, 65_536, 102_400, 300_001];
const encodings: [string, (b: Buffer) => string][] = [
  ['padded', (b) => b.toString('base64')],
  ['unpadded', (b) => b.toString('base64').replace(/=+$/, '')],
  ['URL-safe', (b) => b.toString('base64url')],
  ['wrapped at 76 with CRLF', (b) => b.toString('base64').replace(/.{76}/g, '$&\r\n')],
  ['wrapped at 64 with LF', (b) => b.toString('base64').replace(/.{64}/g, '$&\n')],
];

describe('liftContent', () => {
  it.each(encodings)('keeps %s content as bytes that decode as the parsed string does; the rest parses as JSON.parse gives it', (_name, encode) => {
    for (const size of sizes) {
      const bytes = randomBytes(size);
      const text = encode(bytes);
      const body = JSON.stringify({ filename: 'F-1.pdf', Content: text, note: 'a "quoted" \\ word' });
      const parsed = parseLifted(body);
      if (JSON.stringify(text).length - 2 < LIFT_MIN_CHARS) {
        expect(parsed, `${size}`).toBeUndefined(); // small strings are parsed as they are
        continue;
      }
      expect(parsed.Content.bytes.equals(bytes), `${size}`).toBe(true);
      expect(parsed.Content.chars).toBe(JSON.parse(body).Content.length);
      expect(parsed.filename).toBe('F-1.pdf');
      expect(parsed.note).toBe('a "quoted" \\ word');
    }
  });

  it("reads PHP's json_encode (every / written \\/), any case of the key, and blanks around the colon", () => {
    const bytes = randomBytes(120_000);
    const text = bytes.toString('base64');
    for (const body of [
      `{"filename":"F-1.pdf","content":"${text.replace(/\//g, '\\/')}"}`,
      `{ "CONTENT" :\n "${text}" , "filename" : "F-1.pdf" }`,
      `{"invoice":"inv_1","cOnTeNt":"${text}"}`,
    ]) {
      const parsed = parseLifted(body);
      const key = Object.keys(parsed).find((k) => k.toLowerCase() === 'content')!;
      expect(parsed[key].bytes.equals(bytes)).toBe(true);
      expect(parsed[key].chars).toBe(JSON.parse(body)[key].length);
    }
  });

  it('gives the same markers for the same body (Idempotency-Key fingerprints)', () => {
    const body = Buffer.from(JSON.stringify({ content: randomBytes(80_000).toString('base64') }));
    expect(liftContent(body)!.text).toBe(liftContent(body)!.text);
  });

  it('leaves alone long strings of other fields, strings with other escapes, and a quote escaped inside', () => {
    const long = randomBytes(80_000).toString('base64');
    expect(liftContent(Buffer.from(JSON.stringify({ filename: long })))).toBeUndefined();
    expect(liftContent(Buffer.from(`{"content":"\\u0041${long}"}`))).toBeUndefined();
    // "content" inside a string value is not a key; the long string after it belongs to "x"
    expect(liftContent(Buffer.from(`{"a":"\\"content\\": ","x":"${long}"}`))).toBeUndefined();
    // beyond ASCII its length in bytes is not JSON.parse's in characters (the length limit)
    expect(liftContent(Buffer.from(JSON.stringify({ content: `${long.slice(0, 5000)}é${long.slice(5000)}` })))).toBeUndefined();
  });

  it.each([
    ['a character outside the alphabet', (t: string) => `${t.slice(0, 1000)}*${t.slice(1000)}`],
    ['padding inside', (t: string) => `${t.slice(0, 40_000)}==${t.slice(40_000)}`],
    ['a lone last character', (t: string) => `${t}Q`],
    ['a space inside (taken, as decodeBase64 takes it)', (t: string) => `${t.slice(0, 5000)} ${t.slice(5000)}`],
  ])('decodes text with %s exactly as decodeBase64 does', (_name, spoil) => {
    const text = spoil(randomBytes(90_000).toString('base64'));
    const parsed = parseLifted(JSON.stringify({ content: text }));
    const expected = decodeBase64(text);
    if (expected) expect(parsed.content.bytes?.equals(expected)).toBe(true);
    else expect(parsed.content.bytes).toBeUndefined();
  });

  it('refuses nothing itself: a body that is not JSON is parsed as it came (the caller falls back)', () => {
    const long = randomBytes(80_000).toString('base64');
    const lifted = liftContent(Buffer.from(`{"content":"${long}",}`))!;
    expect(() => JSON.parse(lifted.text)).toThrow();
    expect(liftContent(Buffer.from(`{"content":"${long}`))).toBeUndefined(); // never closed
  });
});

describe('liftFormContent', () => {
  /** Parses a form body as the server does; the marked content back as decoded bytes. */
  function parseForm(body: string) {
    const lifted = liftFormContent(Buffer.from(body));
    if (!lifted) return undefined;
    const value: Record<string, any> = parseQuery(lifted.text);
    for (const [k, v] of Object.entries(value)) if (lifted.lifted.has(v)) value[k] = { bytes: decodeBase64Bytes(lifted.lifted.get(v)!.text), chars: lifted.lifted.get(v)!.chars };
    return value;
  }

  it.each([
    ['URLSearchParams', (b64: string) => new URLSearchParams({ filename: 'F-1.pdf', Content: b64, mediatype: 'application/pdf' }).toString()],
    ['encodeURIComponent, lower-case escapes, content last', (b64: string) => `filename=F-1.pdf&content=${encodeURIComponent(b64).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`],
  ])('keeps a %s content as bytes; the other fields parse as querystring gives them', (_name, encode) => {
    const bytes = randomBytes(120_000);
    const body = encode(bytes.toString('base64'));
    const parsed = parseForm(body)!;
    const key = Object.keys(parsed).find((k) => k.toLowerCase() === 'content')!;
    expect(parsed[key].bytes.equals(bytes)).toBe(true);
    expect(parsed[key].chars).toBe((parseQuery(body)[key] as string).length);
    expect(parsed.filename).toBe('F-1.pdf');
  });

  it('leaves alone a value with a raw + (a space in forms), a broken escape, short values and other fields', () => {
    const b64 = randomBytes(120_000).toString('base64');
    expect(liftFormContent(Buffer.from(`content=${b64.replace(/=+$/, '')}`))).toBeUndefined(); // has raw + and /
    expect(liftFormContent(Buffer.from(`content=${'QUJD'.repeat(20_000)}%G1`))).toBeUndefined();
    expect(liftFormContent(Buffer.from(`content=QUJD&filename=${'QUJD'.repeat(20_000)}`))).toBeUndefined();
    expect(liftFormContent(Buffer.from(`xcontent=${'QUJD'.repeat(20_000)}`))).toBeUndefined();
  });
});
