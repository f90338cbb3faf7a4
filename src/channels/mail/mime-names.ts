// Attachment file names as mail clients really send them, decoded by libmime: RFC 2231
// parameters (charset, percent encoding, continuations), RFC 2047 encoded-words (also inside
// quoted parameters, where clients put them against the rules), windows-1252 for Latin-1 labels
// (the euro sign). Pure, no I/O.
import libmime, { Libmime } from 'libmime';
import { createDecodeStream, decode } from 'libmime/lib/charset.js';

const knownCharset = (charset: string) => createDecodeStream(charset).supported;

// libmime reads a charset it does not know as UTF-8, which turns every 8-bit byte into U+FFFD:
// windows-1252, the likeliest legacy charset, loses nothing.
class NameDecoder extends Libmime {
  override decodeWord(charset: string, encoding: string, text: string): string {
    return super.decodeWord(knownCharset(charset.split('*')[0]) ? charset : 'windows-1252', encoding, text);
  }
}
const mime = new NameDecoder();

/** Text in a named charset: 8-bit text labelled ASCII is the UTF-8 it nearly always is; an unknown charset is windows-1252. */
export function decodeCharset(bytes: Uint8Array, charset = 'utf-8'): string {
  if (/^\s*(us-)?ascii\s*$/i.test(charset)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      /* not UTF-8: windows-1252, as libmime reads ASCII */
    }
  }
  return decode(Buffer.from(bytes), knownCharset(charset) ? charset : 'windows-1252');
}

/** Decodes RFC 2047 encoded-words; adjacent words of one charset are joined before decoding (a character may be split over two). */
export const decodeEncodedWords = (text: string): string => mime.decodeWords(text);

export interface HeaderValue {
  /** the value before the first `;`, lower-cased (e.g. `attachment`, `application/pdf`) */
  value: string;
  /** parameters by lower-case name, fully decoded */
  params: Record<string, string>;
}

/** Parses a structured header value (Content-Type, Content-Disposition) and decodes its parameters. */
export function parseHeaderValue(raw: string): HeaderValue {
  const parsed = mime.parseHeaderValue(raw);
  // RFC 2231 values come out decoded; the others may hold encoded-words
  const params = Object.entries(parsed.params).map(([name, v]) => [name, parsed.decodedParams.includes(name) ? v : decodeEncodedWords(v)]);
  return { value: parsed.value.trim().toLowerCase(), params: Object.fromEntries(params) };
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
export const headerFields = (block: string): Map<string, string[]> => new Map(Object.entries(libmime.decodeHeaders(block)));
