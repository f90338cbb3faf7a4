// Attachment file names as mail clients really send them: RFC 2231 parameters (charset, percent
// encoding, continuations), RFC 2047 encoded-words (also where they are not allowed, inside
// quoted parameters, which Outlook and others still do), and directory parts some clients leave.
// Pure, no I/O.

// windows-1252 at 0x80-0x9F (undefined ones stay as they are). Node's TextDecoder decodes
// windows-1252 and latin1 as plain ISO-8859-1, so the euro sign and friends need this table.
const CP1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const WESTERN = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'l1', 'windows-1252', 'cp1252', 'x-cp1252']);

/** Text in a named charset; unknown charsets fall back to windows-1252 rather than losing the name. */
export function decodeCharset(bytes: Uint8Array, charset: string | undefined): string {
  let label = (charset || 'utf-8').trim().toLowerCase();
  if (label === 'us-ascii' || label === 'ascii') {
    // 8-bit text labelled ASCII is nearly always UTF-8
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      label = 'windows-1252';
    }
  }
  if (!WESTERN.has(label)) {
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      /* unknown label: western below */
    }
  }
  let out = '';
  for (const b of bytes) out += b >= 0x80 && b <= 0x9f ? CP1252[b - 0x80] : String.fromCharCode(b);
  return out;
}

const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([bBqQ])\?([^?\s]*)\?=/g;

function encodedWordBytes(encoding: string, text: string): Buffer {
  if (encoding.toUpperCase() === 'B') return Buffer.from(text, 'base64');
  // Q: underscore is space, =XX is a byte
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '_') out.push(0x20);
    else if (ch === '=' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      out.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(ch, 'latin1'));
  }
  return Buffer.from(out);
}

/**
 * Decodes RFC 2047 encoded-words. Adjacent words (only white space between) are joined, and
 * their bytes are decoded together when they share a charset, so a UTF-8 character split over
 * two words survives.
 */
export function decodeEncodedWords(text: string): string {
  if (!text.includes('=?')) return text;
  type Piece = { plain: string } | { charset: string; bytes: Buffer };
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(ENCODED_WORD)) {
    const between = text.slice(last, m.index);
    const prev = pieces[pieces.length - 1];
    const adjacent = prev && 'bytes' in prev && /^\s*$/.test(between);
    if (!adjacent && between) pieces.push({ plain: between });
    const charset = m[1].toLowerCase();
    const bytes = encodedWordBytes(m[2], m[3]);
    if (adjacent && prev.charset === charset) prev.bytes = Buffer.concat([prev.bytes, bytes]);
    else pieces.push({ charset, bytes });
    last = m.index + m[0].length;
  }
  if (last < text.length) pieces.push({ plain: text.slice(last) });
  return pieces.map((p) => ('plain' in p ? p.plain : decodeCharset(p.bytes, p.charset))).join('');
}

/** Splits `a; b="x;y"; c=z` at semicolons outside quotes. */
function splitParams(value: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (quoted && ch === '\\' && i + 1 < value.length) {
      cur += ch + value[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim());
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replace(/\\(.)/g, '$1');
  return t;
}

function percentBytes(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(...Buffer.from(s[i], 'utf8'));
  }
  return Buffer.from(out);
}

export interface HeaderValue {
  /** the value before the first `;`, lower-cased (e.g. `attachment`, `application/pdf`) */
  value: string;
  /** parameters by lower-case name, fully decoded */
  params: Record<string, string>;
}

/**
 * Parses a structured header value (Content-Type, Content-Disposition) and decodes its
 * parameters: RFC 2231 `name*=charset'lang'%XX`, `name*0*=`/`name*1=` continuations, and
 * RFC 2047 encoded-words inside plain values.
 */
export function parseHeaderValue(raw: string): HeaderValue {
  const unfolded = raw.replace(/\r?\n(?=[ \t])/g, '');
  const [head, ...rest] = splitParams(unfolded);
  const plain: Record<string, string> = {};
  const segments: Record<string, { index: number; extended: boolean; text: string }[]> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq <= 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    const val = p.slice(eq + 1);
    const m = /^([^*]+)(?:\*(\d+))?(\*)?$/.exec(key);
    if (!m) continue;
    const [, name, index, star] = m;
    if (index === undefined && !star) {
      plain[name] = unquote(val);
      continue;
    }
    (segments[name] ??= []).push({ index: index === undefined ? 0 : Number(index), extended: Boolean(star), text: unquote(val) });
  }
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(plain)) params[name] = decodeEncodedWords(value);
  for (const [name, segs] of Object.entries(segments)) {
    segs.sort((a, b) => a.index - b.index);
    let charset: string | undefined;
    const chunks: Buffer[] = [];
    segs.forEach((s, i) => {
      let text = s.text;
      if (s.extended && i === 0) {
        // charset'language'value
        const q1 = text.indexOf("'");
        const q2 = q1 < 0 ? -1 : text.indexOf("'", q1 + 1);
        if (q2 >= 0) {
          charset = text.slice(0, q1) || undefined;
          text = text.slice(q2 + 1);
        }
      }
      chunks.push(s.extended ? percentBytes(text) : Buffer.from(text, 'utf8'));
    });
    params[name] = decodeEncodedWords(decodeCharset(Buffer.concat(chunks), charset));
  }
  return { value: head.trim().toLowerCase(), params };
}

/**
 * A safe file name: encoded-words decoded, directory parts (C:\fakepath\a.pdf, ../a.pdf) and
 * control characters removed, Unicode NFC. Undefined when nothing is left.
 */
export function cleanFileName(name: string | undefined | null): string | undefined {
  if (!name) return undefined;
  let n = decodeEncodedWords(name).replace(/[\u0000-\u001f\u007f]/g, '');
  n = n.split(/[\\/]/).pop() ?? '';
  n = n.trim().normalize('NFC');
  if (!n || n === '.' || n === '..') return undefined;
  return n.length > 255 ? n.slice(0, 255) : n;
}

/** The part's file name: Content-Disposition `filename`, else Content-Type `name`. */
export function fileNameFromHeaders(h: { contentDisposition?: string; contentType?: string }): string | undefined {
  const fromDisposition = h.contentDisposition ? parseHeaderValue(h.contentDisposition).params.filename : undefined;
  const fromType = h.contentType ? parseHeaderValue(h.contentType).params.name : undefined;
  return cleanFileName(fromDisposition) ?? cleanFileName(fromType);
}

/** A raw header block as name -> values (lower-case names, unfolded, topmost first). */
export function headerFields(block: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  const unfolded = block.replace(/\r?\n(?=[ \t])/g, '');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = fields.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    fields.set(name, list);
  }
  return fields;
}
