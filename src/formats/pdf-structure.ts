// A quick structural check of a PDF: the cross-reference data at its end leads to a catalog whose
// page tree counts at least one page, and the file is not encrypted. It reads only that chain
// (the xref sections, the catalog and the page tree's root, inflating an xref or object stream of
// bounded size), so it costs microseconds where a full parse (pdf-reader.ts) costs milliseconds.
// It only ever says "fine": anything it cannot follow is left to the full parse, which decides.
// Pure (node:zlib only).
import { inflateSync } from 'node:zlib';
import { mayHoldXml } from './pdf-embedded-labels.ts';

/** what an xref or object stream may inflate to here; bigger ones go to the full parse */
const MAX_INFLATED = 1 << 20;
const MAX_SECTIONS = 32;

type Entry = { offset: number } | { stream: number; index: number };
/** an object stream's inflated text and where its first object starts */
type ObjectStream = { first: number; text: string };
const latin1 = (b: Uint8Array, from: number, to: number) =>
  Buffer.from(b.buffer, b.byteOffset + from, Math.max(0, Math.min(to, b.length) - from)).toString('latin1');
// one expression per key, made once: these run several times for every file received
const patterns = new Map<string, RegExp>();
const pattern = (source: string) => patterns.get(source) ?? patterns.set(source, new RegExp(source)).get(source)!;
const ref = (dict: string, key: string) => {
  const m = pattern(`/${key}\\s+(\\d+)\\s+\\d+\\s+R`).exec(dict);
  return m ? Number(m[1]) : undefined;
};
const int = (dict: string, key: string) => {
  const m = pattern(`/${key}\\s+(\\d+)(?![\\d\\s]*R)`).exec(dict);
  return m ? Number(m[1]) : undefined;
};

/** The page count the structure shows, or undefined when the chain cannot be followed (or the file is encrypted). */
export const pageCountByStructure = (bytes: Uint8Array): number | undefined => readStructure(bytes)?.pages;

/**
 * The page count and whether the catalog could lead to an embedded XML file (pdf-embedded-labels.ts:
 * its /Names tree or /AF, PDF/A-3's associated files, name one, or cannot be followed); undefined
 * when the chain cannot be followed (or the file is encrypted).
 */
export function readStructure(bytes: Uint8Array): { pages: number; mayHoldXml: boolean } | undefined {
  try {
    // the last `startxref <offset> %%EOF` of the final 1024 bytes: readers ignore what follows it
    // (generators and upload scripts append newlines, comments or junk), see upload-completeness.ts
    const tail = [...latin1(bytes, Math.max(0, bytes.length - 1024), bytes.length).matchAll(/startxref\s+(\d+)\s+%%EOF/g)].at(-1);
    if (!tail) return undefined;
    const entries = new Map<number, Entry>();
    let root: number | undefined;
    for (let at: number | undefined = Number(tail[1]), n = 0; at !== undefined && n < MAX_SECTIONS; n++) {
      const section = readSection(bytes, at, entries);
      if (!section || /\/Encrypt\b/.test(section.trailer)) return undefined;
      root ??= ref(section.trailer, 'Root');
      at = int(section.trailer, 'Prev');
    }
    const streams = new Map<number, ObjectStream | undefined>();
    const body = (num: number) => objectBody(bytes, entries, streams, num);
    const catalog = root === undefined ? undefined : objectText(bytes, entries, body, root);
    const pagesRef = catalog === undefined ? undefined : ref(catalog, 'Pages');
    const pages = pagesRef === undefined ? undefined : objectText(bytes, entries, body, pagesRef);
    const count = pages && /\/Type\s*\/Pages\b/.test(pages) ? int(pages, 'Count') : undefined;
    if (count === undefined || count < 1) return undefined;
    return { pages: count, mayHoldXml: /\/(Names|AF)\b/.test(catalog!) && mayHoldXml(catalog!, body) };
  } catch {
    return undefined; // a malformed stream and the like: the full parse decides
  }
}

/** One cross-reference section at `at` (a table or a stream): adds the entries not yet known, returns its trailer. */
function readSection(bytes: Uint8Array, at: number, entries: Map<number, Entry>): { trailer: string } | undefined {
  const head = latin1(bytes, at, at + 64);
  if (/^xref\s/.test(head)) {
    const end = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf('trailer', at, 'latin1');
    if (end < 0) return undefined;
    const table = latin1(bytes, at + 4, end);
    // a subsection header starts where a run of digits starts: without (?<!\d) a long run of digits
    // is tried from each of its digits, quadratic in its length (a crafted table of 1 MB: minutes)
    const row = /(?<!\d)(\d+)\s+(\d+)\s*[\r\n]+|(\d{10}) (\d{5}) ([nf])/g;
    let num = 0;
    for (let m = row.exec(table); m; m = row.exec(table)) {
      if (m[1] !== undefined) num = Number(m[1]);
      else {
        if (m[5] === 'n' && !entries.has(num)) entries.set(num, { offset: Number(m[3]) });
        num++;
      }
    }
    const trailer = dictAt(latin1(bytes, end, end + 4096));
    return trailer === undefined ? undefined : { trailer };
  }
  const obj = objectAt(bytes, at);
  if (!obj || !/\/Type\s*\/XRef\b/.test(obj.dict)) return undefined;
  const w = /\/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(obj.dict)?.slice(1).map(Number);
  const data = obj.stream && decode(obj.dict, obj.stream);
  if (!w || !data) return undefined;
  const index = /\/Index\s*\[([\d\s]+)\]/.exec(obj.dict)?.[1].trim().split(/\s+/).map(Number) ?? [0, int(obj.dict, 'Size') ?? 0];
  const width = w[0] + w[1] + w[2];
  const field = (pos: number, len: number, dflt: number) => {
    if (len === 0) return dflt;
    let v = 0;
    for (let i = 0; i < len; i++) v = v * 256 + data[pos + i];
    return v;
  };
  let pos = 0;
  for (let s = 0; s + 1 < index.length; s += 2) {
    for (let k = 0; k < index[s + 1] && pos + width <= data.length; k++, pos += width) {
      const num = index[s] + k;
      const type = field(pos, w[0], 1);
      const f2 = field(pos + w[0], w[1], 0);
      const f3 = field(pos + w[0] + w[1], w[2], 0);
      if (entries.has(num)) continue;
      if (type === 1) entries.set(num, { offset: f2 });
      else if (type === 2) entries.set(num, { stream: f2, index: f3 });
    }
  }
  return { trailer: obj.dict };
}

/** The dictionary of object `num`, directly in the file or inside an object stream. */
function objectText(bytes: Uint8Array, entries: Map<number, Entry>, body: (num: number) => string | undefined, num: number): string | undefined {
  const e = entries.get(num);
  if (!e) return undefined;
  if ('offset' in e) return objectAt(bytes, e.offset, num)?.dict;
  const text = body(num);
  return text === undefined ? undefined : dictAt(text);
}

/**
 * The text of object `num` of any kind: from its `N G obj` header to its `endobj` (at most 64 KB),
 * or its slice of an object stream (each stream inflated once a file: `streams`).
 */
function objectBody(bytes: Uint8Array, entries: Map<number, Entry>, streams: Map<number, ObjectStream | undefined>, num: number): string | undefined {
  const e = entries.get(num);
  if (!e) return undefined;
  if ('offset' in e) {
    const end = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf('endobj', e.offset, 'latin1');
    const text = latin1(bytes, e.offset, end < 0 ? e.offset + 65536 : Math.min(end, e.offset + 65536));
    return Number(/^\s*(\d+)\s+\d+\s+obj\b/.exec(text)?.[1]) === num ? text : undefined;
  }
  if (!streams.has(e.stream)) {
    const holder = entries.get(e.stream);
    const container = holder && 'offset' in holder ? objectAt(bytes, holder.offset, e.stream) : undefined;
    const data = container?.stream && decode(container.dict, container.stream);
    const first = container && int(container.dict, 'First');
    streams.set(e.stream, data && first !== undefined ? { first, text: Buffer.from(data).toString('latin1') } : undefined);
  }
  const { first, text } = streams.get(e.stream) ?? {};
  if (text === undefined || first === undefined) return undefined;
  const pairs = text.slice(0, first).trim().split(/\s+/).map(Number);
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    if (pairs[i] !== num) continue;
    const start = first + pairs[i + 1];
    const end = i + 3 < pairs.length ? first + pairs[i + 3] : text.length;
    return text.slice(start, end);
  }
  return undefined;
}

/** `N G obj << ... >>` at `at` (and its stream's raw bytes, when it has one whose /Length is direct). */
function objectAt(bytes: Uint8Array, at: number, num?: number, window = 2048): { dict: string; stream?: Uint8Array } | undefined {
  const text = latin1(bytes, at, at + window);
  const head = /^\s*(\d+)\s+\d+\s+obj\s*/.exec(text);
  if (!head || (num !== undefined && Number(head[1]) !== num)) return undefined;
  const dict = dictAt(text.slice(head[0].length));
  // most dictionaries are short; a long one is read again with a wider window
  if (dict === undefined) return window < 65536 && at + window < bytes.length ? objectAt(bytes, at, num, 65536) : undefined;
  const after = /^\s*stream\r?\n/.exec(text.slice(head[0].length + dict.length));
  const length = after ? int(dict, 'Length') : undefined;
  if (!after || length === undefined) return { dict };
  const start = at + head[0].length + dict.length + after[0].length;
  return start + length <= bytes.length ? { dict, stream: bytes.subarray(start, start + length) } : undefined;
}

/** The balanced `<< ... >>` at the start of `text` (after white space). */
function dictAt(text: string): string | undefined {
  const start = text.indexOf('<<');
  if (start < 0 || (text.slice(0, start).trim() !== '' && !text.startsWith('trailer'))) return undefined;
  let depth = 0;
  for (let i = start; i < text.length - 1; i++) {
    if (text[i] === '<' && text[i + 1] === '<') depth++, i++;
    else if (text[i] === '>' && text[i + 1] === '>') {
      i++;
      if (--depth === 0) return text.slice(0, i + 1);
    }
  }
  return undefined;
}

/** A stream's data: unfiltered or FlateDecode, with the PNG predictors xref streams use. */
function decode(dict: string, raw: Uint8Array): Uint8Array | undefined {
  const filter = /\/Filter\s*(\[\s*)?\/(\w+)/.exec(dict)?.[2];
  if (filter !== undefined && (filter !== 'FlateDecode' || /\/Filter\s*\[\s*\/\w+\s*\/\w+/.test(dict))) return undefined;
  const data = filter ? inflateSync(raw, { maxOutputLength: MAX_INFLATED }) : raw;
  const predictor = int(dict, 'Predictor') ?? 1;
  if (predictor < 10) return predictor === 1 ? data : undefined;
  const columns = int(dict, 'Columns') ?? 1;
  const out = new Uint8Array(Math.floor(data.length / (columns + 1)) * columns);
  for (let r = 0; r * (columns + 1) < data.length && (r + 1) * columns <= out.length; r++) {
    const type = data[r * (columns + 1)];
    for (let c = 0; c < columns; c++) {
      const x = data[r * (columns + 1) + 1 + c];
      const left = c > 0 ? out[r * columns + c - 1] : 0;
      const up = r > 0 ? out[(r - 1) * columns + c] : 0;
      const upLeft = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1] : 0;
      const p = left + up - upLeft;
      const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
      const pred = [0, left, up, (left + up) >> 1, pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft][type];
      if (pred === undefined) return undefined;
      out[r * columns + c] = (x + pred) & 0xff;
    }
  }
  return out;
}
