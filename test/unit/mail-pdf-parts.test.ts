import { describe, expect, it } from 'vitest';
import { candidateStructureParts, decodePartStart, isPdfBytes, maxEncodedSize, selectPdfs } from '../../src/channels/mail/pdf-parts.ts';

const pdf = (s = '') => Buffer.from(`%PDF-1.7\n${s}`);

describe('PDF by its bytes', () => {
  it('finds %PDF- at the start or within the first KB, nowhere else', () => {
    expect(isPdfBytes(pdf())).toBe(true);
    expect(isPdfBytes(Buffer.concat([Buffer.from('\ufeff  junk'), pdf()]))).toBe(true);
    expect(isPdfBytes(Buffer.concat([Buffer.alloc(2000, 0x20), pdf()]))).toBe(false);
    expect(isPdfBytes(Buffer.from('PK\u0003\u0004 zip'))).toBe(false);
    expect(isPdfBytes(Buffer.alloc(0))).toBe(false);
  });

  it('selects PDFs whatever their declared type, names them, and numbers the unnamed', () => {
    const files = selectPdfs([
      { filename: 'a.pdf', contentType: 'application/pdf', content: pdf('a') },
      { filename: 'fake.pdf', contentType: 'application/pdf', content: Buffer.from('not a pdf') },
      { filename: 'b.bin', contentType: 'application/octet-stream', content: pdf('b') },
      { contentType: 'image/png', content: pdf('c') },
      { filename: 'C:\\scans\\d.pdf', contentType: 'application/pdf', content: pdf('d') },
    ]);
    expect(files.map((f) => [f.index, f.filename])).toEqual([
      [0, 'a.pdf'],
      [1, 'b.bin'],
      [2, 'attachment-3.pdf'],
      [3, 'd.pdf'],
    ]);
  });
});

describe('BODYSTRUCTURE candidates (messages too large to download whole)', () => {
  it('lists leaf parts that are not text or containers, inside attached messages too', () => {
    const parts = candidateStructureParts({
      type: 'multipart/mixed',
      childNodes: [
        {
          part: '1',
          type: 'multipart/alternative',
          childNodes: [
            { part: '1.1', type: 'text/plain' },
            { part: '1.2', type: 'text/html' },
          ],
        },
        { part: '2', type: 'application/pdf', size: 1000, encoding: 'base64', dispositionParameters: { filename: 'x.pdf' } },
        { part: '3', type: 'application/octet-stream', size: 10, parameters: { name: 'y.bin' } },
        { part: '4', type: 'message/rfc822', childNodes: [{ part: '4.1', type: 'application/pdf', size: 5, encoding: 'BASE64' }] },
      ],
    });
    expect(parts).toEqual([
      { part: '2', type: 'application/pdf', size: 1000, encoding: 'base64', filename: 'x.pdf' },
      { part: '3', type: 'application/octet-stream', size: 10, encoding: '7bit', filename: 'y.bin' },
      { part: '4.1', type: 'application/pdf', size: 5, encoding: 'base64', filename: undefined, via: ['the attached message'] },
    ]);
  });

  it('lists an attached message the server did not split as a leaf, and text bodies on request', () => {
    const root = {
      type: 'multipart/mixed',
      childNodes: [
        { part: '1', type: 'text/plain', size: 20 },
        { part: '2', type: 'message/rfc822', size: 900, encoding: 'base64', parameters: { name: 'Invoice.eml' } },
        { part: '3', type: 'text/html', size: 20 },
      ],
    };
    expect(candidateStructureParts(root)).toEqual([{ part: '2', type: 'message/rfc822', size: 900, encoding: 'base64', filename: 'Invoice.eml' }]);
    expect(candidateStructureParts(root, 'text')).toEqual([{ part: '1', type: 'text/plain', size: 20, encoding: '7bit', filename: undefined }]);
  });

  it('treats a single-part message body as part 1', () => {
    expect(candidateStructureParts({ type: 'application/pdf', size: 3, encoding: 'base64' })).toEqual([
      { part: '1', type: 'application/pdf', size: 3, encoding: 'base64', filename: undefined },
    ]);
  });

  it('decodes the first bytes of a base64 or quoted-printable part to sniff them', () => {
    const b64 = Buffer.from(
      pdf('hello world')
        .toString('base64')
        .replace(/(.{8})/g, '$1\r\n'),
    );
    expect(isPdfBytes(decodePartStart(b64.subarray(0, 23), 'base64'))).toBe(true);
    expect(decodePartStart(Buffer.from('%PDF-=\r\n1.4=20x'), 'quoted-printable').toString()).toBe('%PDF-1.4 x');
    expect(decodePartStart(Buffer.from('%PDF-1.4'), '7bit').toString()).toBe('%PDF-1.4');
  });

  it('bounds the encoded size of a 5 MB part above 4/3 of it', () => {
    const five = 5 * 1024 * 1024;
    expect(maxEncodedSize(five)).toBeGreaterThan((five * 4) / 3);
    expect(maxEncodedSize(five)).toBeLessThan((five * 4) / 3 + 200_000);
  });
});
