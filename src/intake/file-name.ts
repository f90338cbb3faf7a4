// How a received file's name becomes the key that is matched against invoices. Pure.

/** Invoice numbers are at most 100 characters and ids 36: a longer name can never match. */
export const MAX_MATCH_NAME = 100;

export type NameVerdict =
  | { ok: true; /** what is matched: the invoice id or number */ matchName: string; /** the document's file name, ending in .pdf */ documentName: string }
  | { ok: false; reason: string };

/**
 * Unicode NFC, surrounding blanks dropped, one `.pdf` extension stripped case-insensitively.
 * Names with path parts or control characters are refused: channels hand over base names, so a
 * separator means a client tried to write elsewhere.
 */
export function normaliseFileName(raw: string): NameVerdict {
  const name = raw.normalize('NFC').trim();
  const unsafe = unsafeNameReason(raw);
  if (unsafe) return { ok: false, reason: unsafe };
  const hasExtension = /\.pdf$/i.test(name);
  const stem = (hasExtension ? name.slice(0, -4) : name).trim();
  if (!stem || stem === '.' || stem === '..') return { ok: false, reason: `The file name ${quote(raw)} has no invoice id or number before .pdf` };
  if (stem.length > MAX_MATCH_NAME) return { ok: false, reason: `The file name is longer than any invoice number (${MAX_MATCH_NAME} characters)` };
  return { ok: true, matchName: stem, documentName: hasExtension ? name : `${stem}.pdf` };
}

/** Why a name cannot be taken as it is (path parts, control characters), whatever it is matched against. */
export function unsafeNameReason(raw: string): string | undefined {
  const name = raw.normalize('NFC').trim();
  if (/[\\/]/.test(name)) return `The file name ${quote(raw)} has path parts; send a plain name like <invoice_number>.pdf`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return `The file name ${quote(raw)} contains control characters`;
  return undefined;
}

/** The reason a file gets when its window ends without a matching invoice. */
export const noInvoiceReason = (matchName: string) => `No invoice with id or number ${matchName}`;

function quote(s: string): string {
  const shown = s.length > 120 ? `${s.slice(0, 120)}…` : s;
  return JSON.stringify(shown.replace(/[\u0000-\u001f\u007f]/g, '?'));
}
