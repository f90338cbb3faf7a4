// Fuzzing the hand-written scanner of src/http/lifted-content.ts against the parsers it stands in
// front of: whatever the body (valid JSON or a form written any way, or one spoiled by a byte
// inserted or cut anywhere), what the server reads after lifting is what JSON.parse (querystring)
// reads from the body as it came, with each lifted `content` decoding to what decodeBase64 gives
// for the parsed string, and a body those parsers refuse is never read as valid.
import { parse as parseQuery } from 'node:querystring';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, decodeBase64Bytes } from '../../src/domain/base64.ts';
import { LIFT_MIN_CHARS, liftContent, liftFormContent, type LiftedString } from '../../src/http/lifted-content.ts';

/** `n` bytes from a seed (xorshift): long inputs that fast-check can shrink by their seed and size. */
function bytesOf(seed: number, n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A long value for `content`: Base64 written the ways clients write it, sometimes with junk in it. */
const contentText = fc
  .record({
    seed: fc.integer(),
    size: fc.integer({ min: Math.floor(LIFT_MIN_CHARS * 0.7), max: Math.floor(LIFT_MIN_CHARS * 1.3) }), // bytes: the Base64 is 4/3 of it
    style: fc.constantFrom('padded', 'unpadded', 'url', 'crlf76', 'lf64'),
    junk: fc.option(fc.record({ at: fc.nat(), text: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }) })),
  })
  .map(({ seed, size, style, junk }) => {
    const b = bytesOf(seed, size);
    let t = style === 'url' ? b.toString('base64url') : b.toString('base64');
    if (style === 'unpadded') t = t.replace(/=+$/, '');
    if (style === 'crlf76') t = t.replace(/.{76}/g, '$&\r\n');
    if (style === 'lf64') t = t.replace(/.{64}/g, '$&\n');
    if (junk) t = t.slice(0, junk.at % t.length) + junk.text + t.slice(junk.at % t.length);
    return t;
  });

const contentKey = fc.constantFrom('content', 'Content', 'CONTENT', 'cOnTeNt');
const otherFields = fc.dictionary(fc.string({ maxLength: 10 }).filter((k) => k.toLowerCase() !== 'content'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

/** A JSON body with a long content among other fields, written compactly, indented, or PHP's way (every / as \/). */
const jsonBody = fc
  .record({ key: contentKey, content: contentText, others: otherFields, at: fc.nat(), indent: fc.constantFrom(0, 1, 2), php: fc.boolean() })
  .map(({ key, content, others, at, indent, php }) => {
    const entries = Object.entries(others);
    entries.splice(at % (entries.length + 1), 0, [key, content]);
    const text = JSON.stringify(Object.fromEntries(entries), null, indent);
    return php ? text.replace(/\//g, '\\/') : text;
  });

/** A byte inserted or cut anywhere: bodies that are broken JSON, or still valid but different. */
const spoiled = (body: fc.Arbitrary<string>) =>
  fc.record({ body, at: fc.nat(), cut: fc.boolean(), char: fc.constantFrom('"', '\\', ':', ',', '{', '}', ' ', 'n', 'u', '/') }).map(({ body: b, at, cut, char }) => {
    const i = at % (b.length + 1);
    return cut ? b.slice(0, i) + b.slice(i + 1) : b.slice(0, i) + char + b.slice(i);
  });

/** The value the server reads: lifted markers stand for their bytes and length. */
type Read = { lifted: LiftedString } | unknown;

function readJson(body: string): { ok: boolean; value?: Read } {
  const lifted = liftContent(Buffer.from(body));
  if (!lifted) return { ok: false };
  let value: unknown;
  try {
    value = JSON.parse(lifted.text);
  } catch {
    return { ok: false }; // the server then parses the body as it came
  }
  const resolve = (v: any): Read =>
    typeof v === 'string' && lifted.lifted.has(v) ? { lifted: lifted.lifted.get(v)! }
      : v && typeof v === 'object' ? (Array.isArray(v) ? v.map(resolve) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]))) : v;
  return { ok: true, value: resolve(value) };
}

/** Whether `read` is `parsed` with each lifted value standing for the parsed string. */
function sameReading(read: any, parsed: any): void {
  if (read && typeof read === 'object' && 'lifted' in read && read.lifted?.text instanceof Buffer) {
    expect(typeof parsed).toBe('string');
    expect(read.lifted.chars).toBe(parsed.length);
    const mine = decodeBase64Bytes(read.lifted.text);
    const theirs = decodeBase64(parsed);
    expect(mine === undefined ? undefined : mine.toString('hex')).toBe(theirs === undefined ? undefined : theirs.toString('hex'));
    return;
  }
  if (read && typeof read === 'object') {
    expect(Object.keys(read)).toEqual(Object.keys(parsed));
    for (const k of Object.keys(read)) sameReading(read[k], parsed[k]);
    return;
  }
  expect(read).toStrictEqual(parsed);
}

function agreesWithJsonParse(body: string): void {
  const read = readJson(body);
  if (!read.ok) return; // not lifted, or the lifted text fails: the server parses the body as it came
  let parsed: unknown;
  expect(() => (parsed = JSON.parse(body)), 'a body JSON.parse refuses is read as valid').not.toThrow();
  sameReading(read.value, parsed);
}

/** fc.assert, with a failure told in a few lines (the inputs are 100 KB). */
function holds<T>(arb: fc.Arbitrary<T>, check: (v: T) => void, numRuns: number): void {
  const out = fc.check(fc.property(arb, check), { numRuns });
  if (out.failed) throw new Error(`seed ${out.seed} path ${out.counterexamplePath}: ${String(out.errorInstance).slice(0, 600)}\ninput: ${JSON.stringify(out.counterexample).slice(0, 400)}...`);
}

describe('liftContent, fuzzed against JSON.parse', () => {
  it('reads valid bodies as JSON.parse does', () => holds(jsonBody, agreesWithJsonParse, 60));

  it('never reads a spoiled body otherwise than JSON.parse does', () => holds(spoiled(jsonBody), agreesWithJsonParse, 150));
});

describe('liftFormContent, fuzzed against querystring', () => {
  const formBody = fc
    .record({ key: contentKey, content: contentText, others: fc.dictionary(fc.string({ maxLength: 8 }).filter((k) => k.toLowerCase() !== 'content'), fc.string({ maxLength: 20 }), { maxKeys: 3 }), first: fc.boolean(), lower: fc.boolean() })
    .map(({ key, content, others, first, lower }) => {
      let c = encodeURIComponent(content);
      if (lower) c = c.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
      const rest = new URLSearchParams(others).toString();
      const pair = `${key}=${c}`;
      return [first ? pair : rest, first ? rest : pair].filter(Boolean).join('&');
    });

  it('reads valid and spoiled form bodies as querystring does', () => {
    holds(fc.oneof(formBody, spoiled(formBody)), (body) => {
      const lifted = liftFormContent(Buffer.from(body));
      if (!lifted) return;
      const read: Record<string, any> = parseQuery(lifted.text);
      const parsed = parseQuery(body);
      expect(Object.keys(read)).toEqual(Object.keys(parsed));
      for (const [k, v] of Object.entries(read)) sameReading(lifted.lifted.has(v) ? { lifted: lifted.lifted.get(v) } : v, parsed[k]);
    }, 100);
  });
});
