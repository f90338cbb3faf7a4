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

/**
 * How long to wait for a client's control connection to drop before trusting that a cleanly ended
 * upload is complete: a PDF that ends like one is trusted after the current event-loop turn
 * (its disconnect, if any, arrives with its data); anything else waits `graceMs`.
 */
export function settleDelayMs(bytes: Uint8Array, graceMs: number): number {
  return looksLikeCompletePdf(bytes) ? 0 : graceMs;
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
 * with a reset. Only a file whose format says where it ends is trusted: a PDF ending in `%%EOF`,
 * a ZIP ending in its directory record. The caller still checks that the control connection is
 * alive and the client did not abort.
 */
export function completeDespiteReset(bytes: Uint8Array | undefined): boolean {
  return Boolean(bytes && (looksLikeCompletePdf(bytes) || looksLikeCompleteZip(bytes)));
}
