// Which names an FTP or SFTP client may upload into its flat virtual directory. Pure.
//
// Final names end in `.pdf` or `.zip` (a ZIP archive of PDFs; any case) and go to the intake pipeline at once. Temporary names are
// what WinSCP (`x.pdf.filepart`), lftp (`.in.x.pdf.`, `x.pdf.part`) and scripts (`x.tmp`) upload
// before renaming to the final name; they are held until that rename (transfer-directory.ts,
// FTP's and SFTP's).

import { isUnreadArchiveName } from '../../domain/archive.ts';

const MAX_NAME_LENGTH = 200;

export const NOT_UTF8 =
  "The name is not valid UTF-8 (the client sent it in another character set, such as Latin-1): set the client's file name encoding to UTF-8, or use only letters a-z, digits, '-' and '_'";

const TEMP_SUFFIXES = ['.filepart', '.part', '.partial', '.tmp', '.temp', '.upload'];
const TEMP_PREFIXES = ['.in.'];

export type NameVerdict = { kind: 'final'; name: string } | { kind: 'temp'; name: string } | { kind: 'refused'; reason: string };

/**
 * The base name a client path refers to in the flat directory: `x.pdf`, `/x.pdf` and `./x.pdf`
 * all mean the root's `x.pdf`. Anything with another directory part is refused.
 */
export function clientBaseName(raw: string | null | undefined): { ok: true; name: string } | { ok: false; reason: string } {
  if (raw == null || raw.trim() === '') return { ok: false, reason: 'A file name is required' };
  let name = raw;
  if (name.startsWith('./')) name = name.slice(2);
  else if (name.startsWith('/') && !name.startsWith('//')) name = name.slice(1);
  if (name === '' || name === '.' || name === '..') return { ok: false, reason: 'A file name is required' };
  if (/[/\\]/.test(name)) return { ok: false, reason: 'The directory is flat: names with path parts are not allowed' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return { ok: false, reason: 'The name contains control characters' };
  // the FTP and SFTP libraries decode names as UTF-8 and put U+FFFD where bytes were not UTF-8
  // (a client set to Latin-1 or Windows-1252): such a name could never match its invoice
  if (name.includes('\ufffd')) return { ok: false, reason: NOT_UTF8 };
  if ([...name].length > MAX_NAME_LENGTH) return { ok: false, reason: `The name is longer than ${MAX_NAME_LENGTH} characters` };
  return { ok: true, name };
}

/** `.pdf.p7m`: a PDF in a CAdES signature container, unwrapped; `.xml`: an XML e-invoice, rendered as a PDF (docs/matching.md) */
export function isFinalName(name: string): boolean {
  if (isUnreadArchiveName(name) && !/^\.+[^.]+$/.test(name)) return true; // a 7z or RAR archive: received, refused with its reason (docs/intake.md)
  return /\.(pdf|zip|xml|pdf\.p7m)$/i.test(name) && !/^\.+(pdf|zip|xml|pdf\.p7m)$/i.test(name);
}

/** A ZIP archive, or a temporary name of one (`x.zip.part`): its upload may be as large as ZIP_MAX_TOTAL_BYTES. */
const isArchiveUpload = (name: string): boolean => /\.zip(\.|$)/i.test(name);

/** What FTP's 552 and SFTP's STATUS say about a file over its cap. */
export const tooLargeText = (name: string, cap: number): string =>
  `${name} is larger than ${cap} bytes (${Math.round(cap / 1024 / 1024)} MB): refused, nothing was received`;

/** The most bytes an upload under this name may have. */
export const uploadCap = (name: string, caps: { pdf: number; archive: number }): number => (isArchiveUpload(name) ? caps.archive : caps.pdf);

function hasTempPrefix(name: string): boolean {
  const lower = name.toLowerCase();
  return TEMP_PREFIXES.some((p) => lower.startsWith(p) && lower.length > p.length);
}

function isTempName(name: string): boolean {
  const lower = name.toLowerCase();
  return hasTempPrefix(name) || TEMP_SUFFIXES.some((s) => lower.endsWith(s) && lower.length > s.length);
}

/** What a STOR (or the target of a rename) with this argument is. */
export function classifyUploadName(raw: string | null | undefined): NameVerdict {
  const base = clientBaseName(raw);
  if (!base.ok) return { kind: 'refused', reason: base.reason };
  // lftp's `.in.x.pdf` ends in .pdf but is its temporary name: prefixes win
  if (hasTempPrefix(base.name)) return { kind: 'temp', name: base.name };
  if (isFinalName(base.name)) return { kind: 'final', name: base.name };
  if (isTempName(base.name)) return { kind: 'temp', name: base.name };
  return {
    kind: 'refused',
    reason: 'Only PDF files (<invoice_number>.pdf or <invoice_id>.pdf), XML e-invoices (.xml) and ZIP archives of them can be uploaded',
  };
}

/** True for the arguments that name the (only) directory: none, `.`, `/`, `./`, and `ls` flags. */
export function isRootPath(raw: string | null | undefined): boolean {
  if (raw == null) return true;
  const p = raw.trim();
  return p === '' || p === '.' || p === '/' || p === './' || p === '/.' || p.startsWith('-');
}
