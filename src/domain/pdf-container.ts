// What is stored as a document is a PDF from its first byte (docs/matching.md, "What is stored").
// A received file may hold one behind a little junk (readers skip up to 1 KB before `%PDF-`) or
// inside a container: a CMS/PKCS#7 signature (CAdES `.p7m`) is unwrapped, Outlook's TNEF is
// refused with its name. Pure; one function for every channel and the API.

/** TNEF's signature (0x223E9F78, little-endian): Outlook's winmail.dat */
const TNEF_MAGIC = [0x78, 0x9f, 0x3e, 0x22];
/** the DER of the signedData content type, 1.2.840.113549.1.7.2, as it follows a ContentInfo's header */
const SIGNED_DATA_OID = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]);
/** readers look this far for the header */
const HEADER_WINDOW = 1024;

export type OpenedPdf =
  | { ok: true; bytes: Uint8Array; /** in words, when the PDF is not the file as received: what it was taken out of */ from?: string }
  | { ok: false; reason: string };

/** Unwraps a CMS signedData's content (DER), or says why it cannot. */
export type SignedDataReader = (der: Uint8Array) => { content: Uint8Array; verified: boolean } | { error: string };

const startsWith = (b: Uint8Array, magic: number[]) => magic.every((x, i) => b[i] === x);

/** The DER of a CMS signature container, as sent (binary) or Base64-armoured (`MII...`), or undefined when the file is none. */
export function cmsDer(bytes: Uint8Array): Uint8Array | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64));
  if (head[0] === 0x30 && head.indexOf(SIGNED_DATA_OID) > 0 && head.indexOf(SIGNED_DATA_OID) < 8) return bytes;
  const text = head.toString('latin1');
  if (/^(-----BEGIN (PKCS7|CMS)-----\s*)?MI[A-Za-z0-9+/]/.test(text)) {
    const der = Buffer.from(Buffer.from(bytes).toString('latin1').replace(/-----[A-Z0-9 ]+-----/g, ''), 'base64');
    return der[0] === 0x30 && der.subarray(0, 64).indexOf(SIGNED_DATA_OID) > 0 ? der : undefined;
  }
  return undefined;
}

export function openPdf(bytes: Uint8Array, readSignedData: SignedDataReader | undefined, depth = 0): OpenedPdf {
  if (bytes.length === 0) return { ok: false, reason: 'The file is empty' };
  if (startsWith(bytes, TNEF_MAGIC)) return { ok: false, reason: 'The file is an Outlook TNEF container (winmail.dat), not a PDF; send the PDF itself' };
  const der = cmsDer(bytes);
  if (der) {
    const what = 'a signature container (CMS/PKCS#7, .p7m)';
    if (!readSignedData || depth > 1) return { ok: false, reason: `The file is ${what}, not a PDF; send the PDF itself` };
    const inner = readSignedData(der);
    if ('error' in inner) return { ok: false, reason: `The file is ${what} that could not be opened: ${inner.error}` };
    const opened = openPdf(inner.content, readSignedData, depth + 1);
    if (!opened.ok) return { ok: false, reason: `The file is ${what} that holds no PDF` };
    return { ok: true, bytes: opened.bytes, from: `The PDF was taken out of ${what}; its signature was ${inner.verified ? 'verified' : 'not verified, only unwrapped'}` };
  }
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEADER_WINDOW)).indexOf('%PDF-', 0, 'latin1');
  if (at < 0) return { ok: false, reason: 'The file is not a PDF (no %PDF- header)' };
  return at === 0 ? { ok: true, bytes } : { ok: true, bytes: bytes.subarray(at), from: `The ${at} bytes before the PDF's %PDF- header were dropped` };
}
