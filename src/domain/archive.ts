// ZIP archives received by any channel: which names and bytes are archives, and the limits that
// refuse an archive or one of its entries before anything is decompressed. Pure: the reader
// (intake/zip-reader.ts) hands over what the central directory declares, and yauzl makes sure an
// entry never inflates past its declared size.
import { intakeReason, type IntakeReason } from './intake-reasons.ts';
import { MAX_DOCUMENT_BYTES } from './document-facts.ts';

/** Above this, an entry is refused as a zip bomb: PDFs rarely compress better than 2:1. */
const MAX_COMPRESSION_RATIO = 100;

export interface ArchiveLimits {
  maxEntries: number;
  /** the sum of the entries' uncompressed sizes */
  maxTotalBytes: number;
}

/** What the central directory says about one entry. */
export interface ZipEntryInfo {
  /** the path inside the archive, `/`-separated */
  path: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
}

export const isArchiveName = (name: string): boolean => /\.zip$/i.test(name.trim());

/** Archives of other formats, which no channel reads: by their first bytes, else by their name. */
const UNREAD_MAGIC: [string, number[], number][] = [
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 0],
  ['RAR', [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], 0],
  ['gzip', [0x1f, 0x8b], 0],
  ['bzip2', [0x42, 0x5a, 0x68], 0],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 0],
  ['CAB', [0x4d, 0x53, 0x43, 0x46], 0],
  ['TAR', [0x75, 0x73, 0x74, 0x61, 0x72], 257],
];
const UNREAD_NAMES: [string, RegExp][] = [
  ['7z', /\.7z(\.\d+)?$/i],
  ['RAR', /\.(rar|r\d\d)$/i],
  ['TAR', /\.(tar|tgz|tar\.(gz|bz2|xz))$/i],
  ['gzip', /\.gz$/i],
  ['bzip2', /\.bz2$/i],
  ['xz', /\.xz$/i],
  ['CAB', /\.cab$/i],
  ['ARJ', /\.arj$/i],
  ['LZH', /\.(lzh|lha)$/i],
];
/** The names FTP and SFTP take as final uploads (to record them as refused, not to turn them away unrecorded). */
export const isUnreadArchiveName = (name: string): boolean => UNREAD_NAMES.some(([, re]) => re.test(name.trim()));

/** The kind of an archive that is not read ("7z", "RAR"), or undefined: a PDF, a ZIP, anything else. */
export function unreadArchiveKind(name: string | undefined, bytes: Uint8Array): string | undefined {
  const magic = UNREAD_MAGIC.find(([, sig, at]) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b));
  if (magic) return magic[0];
  if (isZipBytes(bytes)) return undefined;
  return name ? UNREAD_NAMES.find(([, re]) => re.test(name.trim()))?.[0] : undefined;
}

/** Why an archive of another format is refused: "7z archives are not read: send the PDFs or a ZIP". */
export function unreadArchiveReason(name: string | undefined, bytes: Uint8Array): IntakeReason | undefined {
  const kind = unreadArchiveKind(name, bytes);
  return kind ? intakeReason('archive_not_read', { kind }) : undefined;
}

/** `PK\x03\x04` (an archive with entries) or `PK\x05\x06` (an empty one). */
export function isZipBytes(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/** The entry's own name: the last path part (the rest never matters: nothing is written to disk). */
export const entryBaseName = (path: string): string => path.split(/[/\\]/).filter(Boolean).pop() ?? '';

/** Folders, and the resource forks macOS's Finder adds (`__MACOSX/`, `._x.pdf`), are no files. */
export const isIgnoredEntry = (path: string): boolean =>
  path.endsWith('/') || path.split('/').includes('__MACOSX') || entryBaseName(path).startsWith('._') || entryBaseName(path) === '.DS_Store';

const nestedReason = (name: string) => intakeReason('zip_entry_nested', { name });
const NESTED = /\.(zip|rar|7z|tar|tgz|gz|bz2|xz|jar|cab|arj|lz|lzh|zipx)$/i;

/** Whether the archive as a whole is refused, from its entry count (known before any entry is read). */
export function entryCountRefusal(entryCount: number, limits: ArchiveLimits): IntakeReason | undefined {
  if (entryCount > limits.maxEntries) return intakeReason('zip_too_many_entries', { count: entryCount, max: limits.maxEntries });
  if (entryCount === 0) return intakeReason('zip_empty');
  return undefined;
}

/** Whether the archive as a whole is refused, from its entries' declared sizes. */
export function totalSizeRefusal(entries: ZipEntryInfo[], limits: ArchiveLimits): IntakeReason | undefined {
  const total = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (total > limits.maxTotalBytes) return intakeReason('zip_unpacks_too_large', { total, max: limits.maxTotalBytes });
  return undefined;
}

/** Why one entry is refused without being decompressed, or undefined when it may be read. */
export function entryRefusal(e: ZipEntryInfo): IntakeReason | undefined {
  const name = entryBaseName(e.path);
  if (e.encrypted) return intakeReason('zip_entry_encrypted', { name });
  if (NESTED.test(name)) return nestedReason(name);
  if (e.uncompressedSize > MAX_DOCUMENT_BYTES) return intakeReason('zip_entry_too_large', { name, max: MAX_DOCUMENT_BYTES, size: e.uncompressedSize });
  const ratio = e.uncompressedSize / Math.max(1, e.compressedSize);
  if (ratio > MAX_COMPRESSION_RATIO) {
    return intakeReason('zip_entry_bomb', { name, ratio: Math.round(ratio), max: MAX_COMPRESSION_RATIO });
  }
  return undefined;
}

/** An entry whose bytes are an archive whatever its name; other bytes get the rules of any file (pdf.ts). */
export function nestedArchiveRefusal(name: string, bytes: Uint8Array): IntakeReason | undefined {
  return isZipBytes(bytes) ? nestedReason(name) : undefined;
}

/** The archive record's reason once it is unpacked (each file's record says what became of it). */
export function unpackedReason(files: number, refused: number): IntakeReason {
  return refused ? intakeReason('unpacked_some_refused', { count: files, refused }) : intakeReason('unpacked', { count: files });
}
