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
