// Archives of formats no channel reads (7z, RAR, ...): known by their bytes or their name, and
// said in every channel's record instead of being dropped.
import { describe, expect, it } from 'vitest';
import { isUnreadArchiveName, unreadArchiveKind, unreadArchiveReason } from '../../src/domain/archive.ts';
import { isFinalName } from '../../src/channels/transfer/upload-names.ts';
import { walkMessage } from '../../src/channels/mail/message-walker.ts';
import { parseEntity } from '../../src/channels/mail/message-parser.ts';
import { make7z } from '../helpers/zip-archives.ts';

const SEVEN_Z = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4, 1, 2, 3]);
const RAR5 = Buffer.from('Rar!\x1a\x07\x01\x00rest', 'latin1');

describe('archives that are not read', () => {
  it('are known by their first bytes whatever their name, else by their name; ZIP and PDF are not among them', async () => {
    const real = await make7z([{ name: 'a.pdf', bytes: Buffer.from('%PDF-1.4 x') }]);
    expect(unreadArchiveKind('Belege.bin', real)).toBe('7z');
    expect(unreadArchiveKind(undefined, RAR5)).toBe('RAR');
    expect(unreadArchiveKind('Belege.rar', Buffer.from('junk'))).toBe('RAR');
    expect(unreadArchiveKind('x.tar.gz', Buffer.from('junk'))).toBe('TAR');
    expect(unreadArchiveKind('x.7z', Buffer.from('PK\x03\x04', 'latin1'))).toBeUndefined();
    expect(unreadArchiveKind('x.pdf', Buffer.from('%PDF-1.4'))).toBeUndefined();
    expect(unreadArchiveReason('Belege.7z', real)).toEqual({
      text: '7z archives are not read: send the PDFs or a ZIP',
      code: 'archive_not_read',
      params: { kind: '7z' },
    });
  });

  it('FTP and SFTP take their names as final uploads (to record them), not their temporary names', () => {
    expect(isFinalName('Belege.7z')).toBe(true);
    expect(isFinalName('Belege.RAR')).toBe(true);
    expect(isFinalName('.7z')).toBe(false);
    expect(isUnreadArchiveName('Belege.7z.part')).toBe(false);
  });

  it('a message part that is one becomes a problem with the reason, never nothing', async () => {
    const walked = await walkMessage(
      [
        { filename: 'Belege.7z', contentType: 'application/x-7z-compressed', content: SEVEN_Z },
        { contentType: 'application/octet-stream', content: RAR5 },
      ],
      undefined,
      parseEntity,
    );
    expect(walked.files).toEqual([]);
    expect(walked.problems.map((p) => [p.filename, p.reason.text])).toEqual([
      ['Belege.7z', '7z archives are not read: send the PDFs or a ZIP'],
      ['archive.rar', 'RAR archives are not read: send the PDFs or a ZIP'],
    ]);
  });
});
