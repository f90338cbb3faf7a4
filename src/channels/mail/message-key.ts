// A message's identity that survives a UIDVALIDITY change: the SHA-256 of its header block and
// its size. A server that renumbers its messages (restore, migration) serves the same bytes, so
// the key finds the earlier claim; two different messages never share a header block (Received,
// Date and Message-ID differ), so nothing new is ever mistaken for old. Pure.
import { createHash } from 'node:crypto';

/** The header block of a raw message, through the blank line that ends it (as BODY[HEADER]). */
export function headerBlock(source: Buffer): Buffer {
  const crlf = source.indexOf('\r\n\r\n');
  const lf = source.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return source.subarray(0, crlf + 4);
  if (lf >= 0) return source.subarray(0, lf + 2);
  return source;
}

export function messageKey(headers: Buffer, size: number): string {
  return createHash('sha256').update(headers).update(`\0${size}`).digest('hex');
}
