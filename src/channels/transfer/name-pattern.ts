// `NLST *.pdf` / `LIST F-2026-*`: a shell-style pattern over the flat directory's names. Pure.
// `*` any run of characters, `?` one character, `[abc]`/`[a-z]`/`[!abc]` one of (or none of) a
// set; matched case-insensitively, as the intake matches `.pdf`.
//
// A client's pattern never becomes a RegExp: `*a*a*a*a*b` compiled to `.*a.*a.*a.*a.*b` backtracks
// exponentially and stalls the event loop of every role. The matcher below walks name and pattern
// once, going back only to the last `*` (a later `*` supersedes the earlier one's choices), so it
// takes at most name length x pattern length steps; patterns are capped at MAX_PATTERN_LENGTH.

/** Longest pattern accepted, in characters (FTP clients send names far shorter). */
export const MAX_PATTERN_LENGTH = 255;

type Token = { kind: 'star' } | { kind: 'one' } | { kind: 'char'; c: string } | { kind: 'set'; negate: boolean; items: [lo: string, hi: string][] };

/** Whether a LIST/NLST argument is a pattern rather than a name. */
export function isNamePattern(arg: string | null | undefined): boolean {
  return arg != null && /[*?[]/.test(arg);
}

/** A predicate for the names a pattern matches, or why the pattern cannot be used. */
export function namePattern(raw: string): { ok: true; matches: (name: string) => boolean } | { ok: false; reason: string } {
  let pattern = raw.trim();
  if (pattern.startsWith('./')) pattern = pattern.slice(2);
  else if (pattern.startsWith('/') && !pattern.startsWith('//')) pattern = pattern.slice(1);
  if (pattern === '' || /[/\\]/.test(pattern)) return { ok: false, reason: 'The directory is flat: a pattern cannot have path parts' };
  const chars = Array.from(pattern);
  if (chars.length > MAX_PATTERN_LENGTH) return { ok: false, reason: `Pattern too long (at most ${MAX_PATTERN_LENGTH} characters)` };
  const tokens = parse(chars);
  if (typeof tokens === 'string') return { ok: false, reason: tokens };
  return { ok: true, matches: (name) => matchTokens(tokens, Array.from(name)) };
}

/** The pattern's tokens (consecutive stars collapse into one), or why it is invalid. */
function parse(chars: string[]): Token[] | string {
  const out: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '*') {
      if (out.at(-1)?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') out.push({ kind: 'one' });
    else if (c === '[') {
      const set = parseSet(chars, i);
      if (set === undefined) out.push({ kind: 'char', c });
      else if (typeof set === 'string') return set;
      else {
        out.push(set.token);
        i = set.end;
      }
    } else out.push({ kind: 'char', c });
  }
  return out;
}

/** `[...]` starting at chars[start]: the set and the index of its `]`; undefined when it never closes (a literal `[`). */
function parseSet(chars: string[], start: number): { token: Token; end: number } | string | undefined {
  let i = start + 1;
  const negate = chars[i] === '!' || chars[i] === '^';
  if (negate) i++;
  const items: [string, string][] = [];
  // a `]` right after `[` (or `[!`) is a member, as in the shell
  for (let first = true; i < chars.length; i++, first = false) {
    const c = chars[i];
    if (c === ']' && !first) return { token: { kind: 'set', negate, items }, end: i };
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      const hi = chars[i + 2];
      if (c.codePointAt(0)! > hi.codePointAt(0)!) return `Invalid range in pattern: ${c}-${hi}`;
      items.push([c, hi]);
      i += 2;
    } else items.push([c, c]);
  }
  return undefined;
}

/** The character and its other cases (one code point each), as a case-insensitive RegExp compares. */
function cases(c: string): string[] {
  const out = [c];
  for (const v of [c.toLowerCase(), c.toUpperCase()]) if (v !== c && Array.from(v).length === 1) out.push(v);
  return out;
}

function sameLetter(a: string, b: string): boolean {
  return a === b || cases(a).some((x) => cases(b).includes(x));
}

function inSet(t: Extract<Token, { kind: 'set' }>, c: string): boolean {
  const hit = cases(c).some((v) => t.items.some(([lo, hi]) => inRange(v, lo, hi)));
  return hit !== t.negate;
}

// by code point (string comparison would order astral characters by their UTF-16 units)
function inRange(v: string, lo: string, hi: string): boolean {
  const p = v.codePointAt(0)!;
  return p >= lo.codePointAt(0)! && p <= hi.codePointAt(0)!;
}

function matchOne(t: Token, c: string): boolean {
  if (t.kind === 'one') return true;
  if (t.kind === 'char') return sameLetter(t.c, c);
  if (t.kind === 'set') return inSet(t, c);
  return false;
}

/** Whether the tokens match the whole name: greedy, going back only to the most recent star. */
function matchTokens(tokens: Token[], name: string[]): boolean {
  let t = 0;
  let n = 0;
  let star = -1; // token index after the last star seen
  let resume = 0; // name index that star's run would extend to next
  while (n < name.length) {
    const tok = tokens[t];
    if (tok && tok.kind === 'star') {
      star = ++t;
      resume = n;
    } else if (tok && matchOne(tok, name[n])) {
      t++;
      n++;
    } else if (star >= 0) {
      t = star;
      n = ++resume;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}
