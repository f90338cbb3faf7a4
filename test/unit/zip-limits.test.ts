// The ZIP limits, decided from what an archive's central directory declares (domain/archive.ts),
// and which names the channels take as archives.
import { describe, expect, it } from 'vitest';
import {
  entryBaseName,
  entryCountRefusal,
  entryRefusal,
  isArchiveName,
  isIgnoredEntry,
  isZipBytes,
  nestedArchiveRefusal,
  totalSizeRefusal,
  unpackedReason,
  type ZipEntryInfo,
} from '../../src/domain/archive.ts';
import { classifyUploadName, uploadCap } from '../../src/channels/transfer/upload-names.ts';
import { selectPdfs } from '../../src/channels/mail/pdf-parts.ts';

const limits = { maxEntries: 1000, maxTotalBytes: 200 * 1024 * 1024 };
const entry = (o: Partial<ZipEntryInfo>): ZipEntryInfo => ({ path: 'F-1.pdf', compressedSize: 900, uncompressedSize: 1000, encrypted: false, ...o });
const ZIP = Buffer.from('PK\u0003\u0004rest', 'latin1');

describe('archive limits', () => {
  it('refuses more entries than ZIP_MAX_ENTRIES, and an empty archive; 1,000 entries pass', () => {
    expect(entryCountRefusal(1000, limits)).toBeUndefined();
    expect(entryCountRefusal(1001, limits)?.text).toBe('The ZIP archive has 1001 entries; at most 1000 are accepted');
    expect(entryCountRefusal(0, limits)?.text).toBe('The ZIP archive is empty');
  });

  it('refuses an archive whose entries unpack past ZIP_MAX_TOTAL_BYTES together', () => {
    const five = Array.from({ length: 40 }, (_, i) => entry({ path: `${i}.pdf`, uncompressedSize: 5 * 1024 * 1024 }));
    expect(totalSizeRefusal(five, limits)).toBeUndefined(); // exactly 200 MB
    expect(totalSizeRefusal([...five, entry({})], limits)?.text).toBe(
      `The ZIP archive unpacks to ${200 * 1024 * 1024 + 1000} bytes; at most ${200 * 1024 * 1024} are accepted`,
    );
  });

  it('refuses an entry that is encrypted, an archive, over 5 MB, or compressed above 100 to 1', () => {
    expect(entryRefusal(entry({}))).toBeUndefined();
    expect(entryRefusal(entry({ path: 'x/secret.pdf', encrypted: true }))?.text).toBe('secret.pdf in the ZIP archive is encrypted; send it without a password');
    expect(entryRefusal(entry({ path: 'inner.ZIP' }))?.text).toBe('inner.ZIP is an archive inside the ZIP archive; nested archives are not unpacked');
    expect(entryRefusal(entry({ path: 'b.7z' }))?.text).toMatch(/nested archives/);
    expect(entryRefusal(entry({ uncompressedSize: 5 * 1024 * 1024, compressedSize: 5 * 1024 * 1024 }))).toBeUndefined();
    expect(entryRefusal(entry({ uncompressedSize: 5 * 1024 * 1024 + 1, compressedSize: 5 * 1024 * 1024 }))?.text).toBe(
      'F-1.pdf in the ZIP archive is larger than 5242880 bytes (5242881 bytes)',
    );
    expect(entryRefusal(entry({ uncompressedSize: 100_000, compressedSize: 1000 }))).toBeUndefined(); // exactly 100 to 1
    expect(entryRefusal(entry({ uncompressedSize: 4_000_000, compressedSize: 3_900 }))?.text).toBe(
      'F-1.pdf in the ZIP archive is compressed 1026 to 1 (above 100 to 1): refused as a possible zip bomb',
    );
    expect(entryRefusal(entry({ uncompressedSize: 10, compressedSize: 0 }))).toBeUndefined(); // a stored empty-ish entry
  });

  it('knows archives by their bytes whatever their name, and skips folders and Finder litter', () => {
    expect(isZipBytes(ZIP)).toBe(true);
    expect(isZipBytes(Buffer.from('PK\u0005\u0006', 'latin1'))).toBe(true);
    expect(isZipBytes(Buffer.from('%PDF-1.7'))).toBe(false);
    expect(nestedArchiveRefusal('inner.pdf', ZIP)?.text).toBe('inner.pdf is an archive inside the ZIP archive; nested archives are not unpacked');
    expect(nestedArchiveRefusal('a.pdf', Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(entryBaseName('2026/03/F-1.pdf')).toBe('F-1.pdf');
    expect(entryBaseName('../../etc/F-1.pdf')).toBe('F-1.pdf');
    expect(entryBaseName('C:\\docs\\F-1.pdf')).toBe('F-1.pdf');
    for (const p of ['2026/', '__MACOSX/._F-1.pdf', 'x/._F-1.pdf', '.DS_Store']) expect(isIgnoredEntry(p), p).toBe(true);
    expect(isIgnoredEntry('x/F-1.pdf')).toBe(false);
    expect(unpackedReason(50, 0)?.text).toBe('Unpacked into 50 files');
    expect(unpackedReason(1, 0)?.text).toBe('Unpacked into 1 file');
    expect(unpackedReason(6, 3)?.text).toBe('Unpacked into 6 files, 3 of them refused');
  });
});

describe('archives at the channels', () => {
  it('FTP and SFTP take .zip as a final name, with the archive cap for it and its temporary names', () => {
    expect(isArchiveName('day.ZIP')).toBe(true);
    expect(classifyUploadName('day.zip')).toEqual({ kind: 'final', name: 'day.zip' });
    expect(classifyUploadName('.zip')).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/ZIP archives/) });
    expect(classifyUploadName('day.zip.filepart')).toEqual({ kind: 'temp', name: 'day.zip.filepart' });
    const caps = { pdf: 5, archive: 200 };
    expect([uploadCap('day.zip', caps), uploadCap('day.zip.part', caps), uploadCap('.in.day.zip.', caps), uploadCap('F-1.pdf', caps)]).toEqual([
      200, 200, 200, 5,
    ]);
  });

  it('e-mail takes a ZIP attachment named .zip or typed as ZIP, never an Office file', () => {
    const files = selectPdfs([
      { filename: 'day.zip', contentType: 'application/octet-stream', content: ZIP },
      { contentType: 'application/zip', content: ZIP },
      { filename: 'offer.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', content: ZIP },
    ]);
    expect(files.map((f) => f.filename)).toEqual(['day.zip', 'attachment-2.zip']);
  });
});
