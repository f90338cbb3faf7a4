// How a received file's name becomes the key that is matched against invoices. Pure.
import { intakeReason, type IntakeReason } from '../domain/intake-reasons.ts';

export type NameVerdict =
  | {
      ok: true;
      /** what is matched as a whole: the invoice id or number the name says */
      matchName: string;
      /** the document's file name, ending in .pdf */
      documentName: string;
    }
  | { ok: false; reason: IntakeReason };

/** A signature container around the PDF (CAdES `.pdf.p7m`): unwrapped before it is checked. */
const CONTAINER_EXTENSION = /\.p7m$/i;
/** What a browser, a mail program or Windows adds to a second copy of a name: `RE-1 (1).pdf`
 * (the blanks before it are trimmed after: /\s*\(\d{1,3}\)$/ is quadratic on a long run of blanks). */
const COPY_SUFFIX = /\(\d{1,3}\)$/;

/**
 * Unicode NFC, surrounding blanks dropped, a `.p7m` and then one `.pdf` (or `.xml`: an XML
 * e-invoice, attached as the PDF rendered from it) extension stripped case-insensitively, then a
 * copy's ` (1)`. Names of any length: what decides is the evidence
 * inside. Names with path parts or control characters are refused: channels hand over base
 * names, so a separator means a client tried to write elsewhere.
 */
export function normaliseFileName(raw: string): NameVerdict {
  const unsafe = unsafeNameReason(raw);
  if (unsafe) return { ok: false, reason: unsafe };
  const name = raw.normalize('NFC').trim().replace(CONTAINER_EXTENSION, '');
  const hasExtension = /\.pdf$/i.test(name);
  const xml = /\.xml$/i.test(name);
  const stem = (hasExtension || xml ? name.slice(0, -4) : name).trim();
  const matchName = stem.replace(COPY_SUFFIX, '').trim();
  if (!matchName || matchName === '.' || matchName === '..') return { ok: false, reason: intakeReason('name_no_invoice', { name: quote(raw) }) };
  return { ok: true, matchName, documentName: hasExtension ? name : `${stem}.pdf` };
}

/** Why a name cannot be taken as it is (path parts, control characters), whatever it is matched against. */
export function unsafeNameReason(raw: string): IntakeReason | undefined {
  const name = raw.normalize('NFC').trim();
  if (/[\\/]/.test(name)) return intakeReason('name_path_parts', { name: quote(raw) });
  if (/[\u0000-\u001f\u007f]/.test(name)) return intakeReason('name_control_characters', { name: quote(raw) });
  return undefined;
}

function quote(s: string): string {
  const shown = s.length > 120 ? `${s.slice(0, 120)}…` : s;
  return JSON.stringify(shown.replace(/[\u0000-\u001f\u007f]/g, '?'));
}
