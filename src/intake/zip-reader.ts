// A ZIP archive read in memory with yauzl: the central directory first (names and declared sizes,
// nothing decompressed), then one entry at a time on demand. Entry paths are only names here:
// nothing is ever written to disk, so yauzl's path checks (`..`, absolute paths), which would
// refuse the whole archive, are left off and the name is decoded without them.
import yauzl from 'yauzl';
import type { ZipEntryInfo } from '../domain/archive.ts';
import { storedReader, type StoredZip } from './stored-zip-source.ts';

// yauzl 3's decoder (UTF-8 flag, Info-ZIP Unicode path field, CP437); @types/yauzl 2.10 lacks it
const decodeName = (yauzl as unknown as { getFileNameLowLevel(flag: number, raw: Buffer, extra: yauzl.Entry['extraFields'], strict: boolean): string })
  .getFileNameLowLevel;

export interface ListedEntry extends ZipEntryInfo {
  entry: yauzl.Entry;
}

export interface OpenZip {
  /** from the end-of-central-directory record: known before any entry is listed */
  entryCount: number;
  /** every entry the central directory lists, in order */
  list(): Promise<ListedEntry[]>;
  /** one entry's bytes; yauzl fails the read when it inflates past its declared size */
  read(e: ListedEntry): Promise<Buffer>;
  close(): void;
}

/** The archive in memory, or where it lies in the document store (stored-zip-source.ts). */
export function openZip(source: Buffer | StoredZip): Promise<OpenZip> {
  return new Promise((resolve, reject) => {
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true };
    const opened = (err: Error | null, zip: yauzl.ZipFile) => {
      if (err) return reject(err);
      resolve({
        entryCount: zip.entryCount,
        list: () => listEntries(zip),
        read: (e) => readEntry(zip, e.entry),
        close: () => zip.close(),
      });
    };
    if (Buffer.isBuffer(source)) yauzl.fromBuffer(source, options, opened);
    else yauzl.fromRandomAccessReader(storedReader(source), source.size, options, opened);
  });
}

function listEntries(zip: yauzl.ZipFile): Promise<ListedEntry[]> {
  return new Promise((resolve, reject) => {
    const out: ListedEntry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      out.push({
        entry,
        path: decodeName(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false),
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        encrypted: entry.isEncrypted(),
      });
      zip.readEntry();
    });
    zip.once('end', () => resolve(out));
    zip.once('error', reject);
    zip.readEntry();
  });
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.once('end', () => resolve(Buffer.concat(chunks)));
      stream.once('error', reject);
    });
  });
}
