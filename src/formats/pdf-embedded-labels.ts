// Whether a PDF may carry an embedded XML file, read from the catalog's EmbeddedFiles name tree and
// its /AF array without a full parse. The full parse (pdf-reader.ts) reads an embedded file as an
// e-invoice only when its label (/UF, else /F, else the tree's key) ends in `.xml`; here any string
// of a tree node or file specification that says `xml` anywhere counts, and whatever cannot be
// followed (a reference where a string or array is expected, too many files, a broken object)
// says "may", so only files whose every attachment is plainly something else skip the full parse.
// Pure.

type Value = { t: 'dict'; v: Map<string, Value> } | { t: 'array'; v: Value[] } | { t: 'string'; v: string } | { t: 'ref'; v: number } | { t: 'other' };

/** The text of object `num` from its `obj` keyword on (or inside its object stream), or undefined. */
type ObjectBody = (num: number) => string | undefined;

/** what the full parse looks at (pdf-reader.ts MAX_EMBEDDED / MAX_DEPTH); more is "may" */
const MAX_FILES = 32;
const MAX_DEPTH = 16;

export function mayHoldXml(catalog: string, body: ObjectBody): boolean {
  try {
    const root = parse(catalog);
    if (root?.value.t !== 'dict') return true;
    // the same file specification is often both in the tree and in /AF; a cycle ends at MAX_DEPTH or MAX_FILES
    const objects = new Map<number, Value>();
    const resolve = (v: Value | undefined): Value | undefined => {
      if (v?.t !== 'ref') return v;
      let found = objects.get(v.v);
      if (!found) {
        const text = body(v.v);
        found = text === undefined ? undefined : parse(text)?.value;
        if (!found) throw new Error(`object ${v.v} unreadable`);
        objects.set(v.v, found);
      }
      return found;
    };
    let files = 0;
    const file = (spec: Value | undefined) => {
      if (++files > MAX_FILES) throw new Error('too many files');
      const dict = resolve(spec);
      if (dict?.t !== 'dict') throw new Error('file specification is no dictionary');
      for (const key of ['UF', 'F']) {
        const label = dict.v.get(key);
        if (label && label.t !== 'string') throw new Error(`/${key} is no string`);
      }
      return [...dict.v.values()].some(saysXml);
    };
    const node = (v: Value | undefined, depth: number): boolean => {
      const dict = resolve(v);
      if (dict === undefined) return false;
      if (dict.t !== 'dict' || depth > MAX_DEPTH) throw new Error('name tree node');
      const names = resolve(dict.v.get('Names'));
      const kids = resolve(dict.v.get('Kids'));
      if ((names && names.t !== 'array') || (kids && kids.t !== 'array')) throw new Error('name tree arrays');
      const pairs = names?.t === 'array' ? names.v : [];
      for (let i = 0; i < pairs.length; i += 2) if (pairs[i].t !== 'string' || saysXml(pairs[i]) || file(pairs[i + 1])) return true;
      return kids?.t === 'array' ? kids.v.some((kid) => node(kid, depth + 1)) : false;
    };
    const names = resolve(root.value.v.get('Names'));
    if (names && names.t !== 'dict') return true;
    if (names && node(names.v.get('EmbeddedFiles'), 0)) return true;
    const af = resolve(root.value.v.get('AF'));
    if (af && af.t !== 'array') return true;
    return af?.t === 'array' ? af.v.some(file) : false;
  } catch {
    return true;
  }
}

/** A string that says `xml` in any case, once NULs (UTF-16) are dropped; strings inside arrays and dictionaries too. */
function saysXml(v: Value | undefined): boolean {
  if (!v) return false;
  if (v.t === 'string') return /xml/i.test(v.v.replace(/\0/g, ''));
  if (v.t === 'array') return v.v.some(saysXml);
  if (v.t === 'dict') return [...v.v.values()].some(saysXml);
  return false;
}

const DELIMITER = /[\s()<>[\]{}/%]/;

/** The first PDF value of `text` (after an `N G obj` header, if any). */
function parse(text: string): { value: Value; end: number } | undefined {
  const head = /^\s*\d+\s+\d+\s+obj\b/.exec(text);
  return value(text, head ? head[0].length : 0);
}

function skip(text: string, at: number): number {
  for (;;) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (text[at] !== '%') return at;
    while (at < text.length && text[at] !== '\n' && text[at] !== '\r') at++;
  }
}

function value(text: string, from: number): { value: Value; end: number } | undefined {
  const at = skip(text, from);
  const c = text[at];
  if (c === undefined) return undefined;
  if (c === '(') return literal(text, at);
  if (text.startsWith('<<', at)) {
    const map = new Map<string, Value>();
    for (let i = at + 2; ; ) {
      i = skip(text, i);
      if (text.startsWith('>>', i)) return { value: { t: 'dict', v: map }, end: i + 2 };
      const key = /^\/([^\s()<>[\]{}/%]*)/.exec(text.slice(i, i + 128));
      const item = key && value(text, i + key[0].length);
      if (!key || !item) return undefined;
      map.set(key[1], item.value);
      i = item.end;
    }
  }
  if (c === '<') {
    const end = text.indexOf('>', at);
    if (end < 0) return undefined;
    const hex = text.slice(at + 1, end).replace(/\s/g, '');
    if (!/^[0-9a-f]*$/i.test(hex)) return undefined;
    return { value: { t: 'string', v: Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex').toString('latin1') }, end: end + 1 };
  }
  if (c === '[') {
    const items: Value[] = [];
    for (let i = at + 1; ; ) {
      i = skip(text, i);
      if (text[i] === ']') return { value: { t: 'array', v: items }, end: i + 1 };
      const item = value(text, i);
      if (!item) return undefined;
      items.push(item.value);
      i = item.end;
    }
  }
  const ref = /^(\d+)\s+(\d+)\s+R(?![^\s()<>[\]{}/%])/.exec(text.slice(at, at + 32));
  if (ref) return { value: { t: 'ref', v: Number(ref[1]) }, end: at + ref[0].length };
  // a name, number, boolean or null: up to the next delimiter (a name's own slash first)
  let end = c === '/' ? at + 1 : at;
  while (end < text.length && !DELIMITER.test(text[end])) end++;
  return end > at ? { value: { t: 'other' }, end } : undefined;
}

/** A literal string: balanced parentheses, backslash escapes (octal, line continuations). */
function literal(text: string, at: number): { value: Value; end: number } | undefined {
  let out = '';
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      const n = text[++i];
      const octal = /^[0-7]{1,3}/.exec(text.slice(i, i + 3));
      if (octal) (out += String.fromCharCode(parseInt(octal[0], 8) & 0xff)), (i += octal[0].length - 1);
      else if (n === '\r') i += text[i + 1] === '\n' ? 1 : 0;
      else if (n !== '\n') out += { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' }[n] ?? n;
    } else if (c === '(') {
      if (depth++ > 0) out += c;
    } else if (c === ')') {
      if (--depth === 0) return { value: { t: 'string', v: out }, end: i + 1 };
      out += c;
    } else out += c;
  }
  return undefined;
}
