// What is stored as a document is a PDF from its first byte (docs/matching.md, "What is stored").
// A received file may hold one behind a little junk (readers skip up to 1 KB before `%PDF-`) or
// inside a container: a CMS/PKCS#7 signature (CAdES `.p7m`) is unwrapped (cms-container.ts),
// Outlook's TNEF is refused with its name. Pure; one function for every channel and the API.
import { unwrapSignedData } from './cms-container.ts';
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';

/** TNEF's signature (0x223E9F78, little-endian): Outlook's winmail.dat */
const TNEF_MAGIC = [0x78, 0x9f, 0x3e, 0x22];
/** readers look this far for the header */
const HEADER_WINDOW = 1024;

export type OpenedPdf =
  | { ok: true; bytes: Uint8Array /** when the PDF is not the file as received: what it was taken out of */; from?: IntakeReason }
  | { ok: false; reason: IntakeReason };

export function openPdf(bytes: Uint8Array): OpenedPdf {
  if (bytes.length === 0) return { ok: false, reason: intakeReason('file_empty') };
  if (TNEF_MAGIC.every((x, i) => bytes[i] === x)) return { ok: false, reason: intakeReason('file_tnef') };
  const cms = unwrapSignedData(bytes);
  if (cms && 'error' in cms) return { ok: false, reason: intakeReason('file_cms_unreadable', { error: cms.error }) };
  if (cms) {
    const inner = openPdf(cms.content);
    if (!inner.ok || inner.from) return { ok: false, reason: intakeReason('file_cms_no_pdf') };
    return { ok: true, bytes: inner.bytes, from: intakeReason(cms.verified ? 'from_signed_verified' : 'from_signed_unverified') };
  }
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEADER_WINDOW)).indexOf('%PDF-', 0, 'latin1');
  if (at < 0) return { ok: false, reason: intakeReason('file_not_pdf') };
  return at === 0 ? { ok: true, bytes } : { ok: true, bytes: bytes.subarray(at), from: intakeReason('from_junk_dropped', { skipped: at }) };
}

/** XML by its first bytes: `<` after blanks or a byte order mark, or UTF-16's `<`. */
export function looksLikeXml(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  if ((bytes[0] === 0x3c && bytes[1] === 0x00) || (bytes[0] === 0x00 && bytes[1] === 0x3c)) return true;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && i < 64 && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i])) i++;
  return bytes[i] === 0x3c;
}
