// Base64 as clients send it: padded or not, with line breaks (mail clients wrap at 76), in the
// standard or the URL-safe alphabet.

/**
 * The bytes, or undefined when the text is not Base64. Node's decoder skips whatever is not
 * Base64, so output of exactly the length the text promises proves the text clean; that saves a
 * regular expression over every file (about 1 ms per 100 KB). Only text with line breaks or junk
 * takes the slow path.
 */
export function decodeBase64(text: string): Buffer | undefined {
  return decodeClean(text) ?? (/\s/.test(text) ? decodeClean(text.replace(/\s+/g, '')) : undefined);
}

const PIECE = 65_536; // a multiple of 4: pieces that decode on their own

/**
 * The same for Base64 text held as bytes (a request body's part), decoded by 64 KB pieces: never
 * one string of the whole text, which past 128 KB is a V8 large object with fresh memory each time.
 */
export function decodeBase64Bytes(text: Buffer): Buffer | undefined {
  return decodeClean(text) ?? decodeBase64(text.toString('utf8')); // blanks or junk (rare): as a string
}

function decodeClean(text: string | Buffer): Buffer | undefined {
  const at = (i: number) => (typeof text === 'string' ? text.charCodeAt(i) : text[i]);
  const pad = at(text.length - 1) === 0x3d ? (at(text.length - 2) === 0x3d ? 2 : 1) : 0;
  const body = text.length - pad;
  // a lone last character holds no whole byte; padding only fills the last group of four
  if (body % 4 === 1 || (pad > 0 && text.length % 4 !== 0)) return undefined;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'base64') : decodePieces(text);
  return bytes.length === Math.floor((body * 3) / 4) ? bytes : undefined;
}

function decodePieces(text: Buffer): Buffer {
  const pieces: Buffer[] = [];
  for (let k = 0; k < text.length; k += PIECE) pieces.push(Buffer.from(text.toString('latin1', k, Math.min(text.length, k + PIECE)), 'base64'));
  return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
}
