// A document's Base64 content in a request body (JSON, or form fields) is kept as bytes: the body
// is parsed with that value replaced by a short marker, and the route takes the bytes behind the
// marker (contentBytes in routes/documents.ts, decoded by decodeBase64Bytes). A 100 KB PDF is a
// 136 KB string; a string that size is a V8 "large object", given fresh memory on every request,
// and an upload made two of them (the body text, then the parsed value): about 70 page faults,
// which on virtual machines where a fault is dear cost more than the rest of the request.
// test/unit/lifted-content-fuzz.test.ts holds it to JSON.parse and querystring on any body.
import { isAscii } from 'node:buffer';

/** Shorter strings (and bodies) are parsed as they are: only large objects are worth keeping out of the heap. */
export const LIFT_MIN_CHARS = 65_536;

/** A `content` string kept out of the parsed body: its text without JSON's escapes. */
export interface LiftedString {
  text: Buffer;
  /** its length as JSON.parse would have given it (for the length limit) */
  chars: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// escapes found in Base64: PHP's json_encode writes \/ ; line-wrapping encoders \n or \r\n,
// which Base64 skips (-1: dropped from the text)
const ESCAPED: Record<number, number | undefined> = { 0x2f: 0x2f, 0x6e: -1, 0x72: -1 };
const KEY = Buffer.from('"content"');

/** `\uffffcontent:<n>`: U+FFFF is a noncharacter that clients do not send */
const marker = (n: number) => `\uffffcontent:${n}`;

/**
 * The body's text with each long `content` string replaced by a marker, and those strings by
 * marker; undefined when there is none. Markers are the same for the same body, so that
 * Idempotency-Key fingerprints hold.
 */
export function liftContent(body: Buffer): { text: string; lifted: Map<string, LiftedString> } | undefined {
  if (body.length <= LIFT_MIN_CHARS) return undefined;
  const parts: Buffer[] = [];
  const lifted = new Map<string, LiftedString>();
  let copied = 0;
  for (let open = body.indexOf(QUOTE); open >= 0; open = body.indexOf(QUOTE, open + 1)) {
    const close = closingQuote(body, open);
    if (close < 0) break;
    const isContent = close - open - 1 >= LIFT_MIN_CHARS && keyBefore(body, open);
    if (isContent) {
      const text = unescape(body.subarray(open + 1, close));
      if (text) {
        const m = marker(lifted.size);
        lifted.set(m, text);
        parts.push(body.subarray(copied, open + 1), Buffer.from(m.replace('\uffff', '\\uffff'))); // as a JSON escape
        copied = close;
      }
    }
    open = close;
  }
  if (!lifted.size) return undefined;
  parts.push(body.subarray(copied));
  return { text: Buffer.concat(parts).toString('utf8'), lifted };
}

/** Where the string opened at `open` ends: the next quote not escaped by a backslash. */
function closingQuote(body: Buffer, open: number): number {
  for (let q = body.indexOf(QUOTE, open + 1); q >= 0; q = body.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (body[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** Whether `"content"` (any case) and a colon come just before the string opened at `open`. */
function keyBefore(body: Buffer, open: number): boolean {
  let k = open - 1;
  while (k >= 0 && isSpace(body[k])) k--;
  if (body[k] !== 0x3a) return false;
  k--;
  while (k >= 0 && isSpace(body[k])) k--;
  return keyAt(body, k - KEY.length + 1, KEY);
}

/** Whether `key` (lower case) stands at `at`, in any case. */
const keyAt = (body: Buffer, at: number, key: Buffer) => at >= 0 && key.every((c, n) => (body[at + n] | 0x20) === c);

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * The string's text, its escapes undone and line breaks dropped; undefined for an escape Base64
 * never needs, or a character beyond ASCII (whose length in bytes is not its length in JSON.parse's
 * characters): parsed as usual then.
 */
function unescape(raw: Buffer): LiftedString | undefined {
  if (!isAscii(raw)) return undefined;
  let at = raw.indexOf(BACKSLASH);
  if (at < 0) return { text: raw, chars: raw.length };
  const out = Buffer.allocUnsafe(raw.length);
  let o = 0;
  let from = 0;
  let escapes = 0;
  for (; at >= 0; at = raw.indexOf(BACKSLASH, from)) {
    const c = ESCAPED[raw[at + 1]];
    if (c === undefined) return undefined;
    o += raw.copy(out, o, from, at);
    if (c >= 0) out[o++] = c;
    escapes++;
    from = at + 2;
  }
  o += raw.copy(out, o, from);
  return { text: out.subarray(0, o), chars: raw.length - escapes };
}

const AMPERSAND = 0x26;
const PERCENT = 0x25;
const PLUS = 0x2b;
const FORM_KEY = Buffer.from('content=');

/** The same for a form body (`content=...&...`): its text with a long `content` value replaced by the marker. */
export function liftFormContent(body: Buffer): { text: string; lifted: Map<string, LiftedString> } | undefined {
  if (body.length <= LIFT_MIN_CHARS) return undefined;
  for (let at = 0; at < body.length; ) {
    const next = body.indexOf(AMPERSAND, at);
    const end = next < 0 ? body.length : next;
    if (end - at - FORM_KEY.length >= LIFT_MIN_CHARS && keyAt(body, at, FORM_KEY)) {
      const text = percentDecode(body.subarray(at + FORM_KEY.length, end));
      if (!text) return undefined;
      const lifted = new Map([[marker(0), { text, chars: text.length }]]);
      const encoded = Buffer.from(encodeURIComponent(marker(0)));
      return { text: Buffer.concat([body.subarray(0, at + FORM_KEY.length), encoded, body.subarray(end)]).toString('utf8'), lifted };
    }
    at = end + 1;
  }
  return undefined;
}

const HEX = new Int8Array(256).fill(-1);
for (const [n, c] of [...'0123456789abcdef'].entries()) HEX[c.charCodeAt(0)] = HEX[c.toUpperCase().charCodeAt(0)] = n;

/** Percent-decoded bytes; undefined for a `+` (a space in forms, never Base64: left to the usual path), a broken escape or a character beyond ASCII. */
function percentDecode(raw: Buffer): Buffer | undefined {
  if (raw.indexOf(PLUS) >= 0 || !isAscii(raw)) return undefined;
  let at = raw.indexOf(PERCENT);
  if (at < 0) return raw;
  const out = Buffer.allocUnsafe(raw.length);
  let o = 0;
  let from = 0;
  for (; at >= 0; at = raw.indexOf(PERCENT, from)) {
    const hi = HEX[raw[at + 1]];
    const lo = HEX[raw[at + 2]];
    if (hi < 0 || lo < 0 || at + 2 >= raw.length) return undefined;
    o += raw.copy(out, o, from, at);
    out[o++] = hi * 16 + lo;
    from = at + 3;
  }
  o += raw.copy(out, o, from);
  return isAscii(out.subarray(0, o)) ? out.subarray(0, o) : undefined;
}
