// FTP stream mode has no end marker: a data connection that closes cleanly looks the same whether
// the client sent the whole file or died half way. A killed client also drops its control
// connection, so before a file is handed on the channel checks that the control connection is
// still there. How long it waits for that to show depends on whether the file looks complete. Pure.

/** Readers accept `%%EOF` anywhere in the last 1024 bytes (generators append newlines or junk). */
export function looksLikeCompletePdf(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + Math.max(0, bytes.length - 1024), Math.min(bytes.length, 1024)).toString('latin1');
  return tail.includes('%%EOF');
}

/** A ZIP archive ends with its end-of-central-directory record (22 bytes plus its comment). */
export function looksLikeCompleteZip(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let at = b.length - 22; at >= Math.max(0, b.length - 22 - 0xffff); at--) {
    if (b.readUInt32LE(at) === 0x06054b50) return at + 22 + b.readUInt16LE(at + 20) === b.length;
  }
  return false;
}

/**
 * Whether a data connection that was reset after the last byte (instead of ending with TLS
 * close_notify and FIN) delivered a whole file. Perl's and Ruby's Net::FTP close the data
 * connection without reading the TLS 1.3 session tickets the server sent, and the kernel answers
 * with a reset. Only a file whose format says where it ends is trusted (looksComplete). The caller still checks that the control connection is
 * alive and the client did not abort.
 */
export function completeDespiteReset(file: UploadEnds | undefined): boolean {
  return Boolean(file && looksComplete(file));
}

/** An upload's first and last bytes (the whole file when it is short): what says whether it ended. */
export interface UploadEnds {
  head: Uint8Array;
  tail: Uint8Array;
}

/** The file's format says it ended: a PDF's `%%EOF`, a ZIP's directory record, an XML document's closed root. */
function looksComplete(file: UploadEnds): boolean {
  return looksLikeCompletePdf(file.tail) || looksLikeCompleteZip(file.tail) || looksLikeCompleteXml(file);
}

/**
 * How long to wait for a client's control connection to drop before trusting that a cleanly ended
 * upload is complete: a file that ends as its format says (looksComplete) is trusted after the
 * current event-loop turn (its disconnect, if any, arrives with its data); anything else waits `graceMs`.
 */
export function settleDelayMs(file: UploadEnds, graceMs: number): number {
  return looksComplete(file) ? 0 : graceMs;
}

const latin1 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
/** The prolog before the root element: declaration, processing instructions, comments, a DOCTYPE. */
const ROOT_START = /^(?:\xef\xbb\xbf)?\s*(?:(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)[\s>]/;

/** The text without what may follow an XML root element: white space, comments, processing instructions. */
function withoutTrailingMisc(text: string): string {
  for (let t = text.trimEnd(); ; ) {
    const open = t.endsWith('-->') ? t.lastIndexOf('<!--') : t.endsWith('?>') ? t.lastIndexOf('<?') : -1;
    if (open < 0) return t;
    t = t.slice(0, open).trimEnd();
  }
}

/**
 * An XML document (an e-invoice) ends with its root element's end tag, and only white space,
 * comments or processing instructions after it. A document cut short ends inside the root: the
 * root's name comes from the head, so an inner element's end tag (`</cbc:ID>`) does not pass.
 * UTF-8 and single-byte encodings only; a UTF-16 document waits for the grace period.
 */
export function looksLikeCompleteXml(file: UploadEnds): boolean {
  const root = ROOT_START.exec(latin1(file.head))?.[1];
  if (!root) return false;
  const end = withoutTrailingMisc(latin1(file.tail));
  return new RegExp(`</${root.replace(/[.]/g, '\\.')}\\s*>$`).test(end);
}
