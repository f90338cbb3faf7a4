// What is stored is a PDF from its first byte (docs/matching.md, "What is stored is a PDF"):
// junk before the header, TNEF, CMS signature containers made by OpenSSL (test/fixtures/mail/cms).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/formats/pdf-container.ts';
import { sniffPdf } from '../../src/formats/pdf.ts';
import { said, saying } from '../helpers/reasons.ts';

const CMS = path.join(import.meta.dirname, '../fixtures/mail/cms');
const fixture = (name: string) => fs.readFileSync(path.join(CMS, name));
const pdf = fixture('invoice.pdf');

describe('openPdf', () => {
  it('takes a PDF as it is', () => {
    expect(openPdf(pdf)).toEqual({ ok: true, bytes: pdf });
  });

  it('drops junk before %PDF- within 1,024 bytes, and says so; further is no PDF', () => {
    const opened = openPdf(Buffer.concat([Buffer.from('\uFEFF\r\n'), pdf]));
    expect(opened).toMatchObject({ ok: true, from: said("The 5 bytes before the PDF's %PDF- header were dropped") });
    expect(opened.ok && Buffer.from(opened.bytes).equals(pdf)).toBe(true);
    expect(openPdf(Buffer.concat([Buffer.alloc(1024, 0x20), pdf]))).toEqual({
      ok: false,
      reason: said('The file is not a PDF (no %PDF- header); send the invoice as a PDF file'),
    });
  });

  it.each(['signed.der', 'signed.pem', 'signed.b64', 'signed-ber.der', 'signed-ec.der', 'double.der'])(
    'unwraps the PDF of %s and says its signature was verified',
    (name) => {
      const opened = openPdf(fixture(name));
      expect(opened).toMatchObject({ ok: true, from: said('The PDF was taken out of a signature container (CMS/PKCS#7, .p7m); its signature was verified') });
      expect(opened.ok && Buffer.from(opened.bytes).equals(pdf)).toBe(true);
    },
  );

  it('a container without the signer certificate is only unwrapped', () => {
    expect(openPdf(fixture('signed-nocerts.der'))).toMatchObject({ ok: true, from: saying('not verified, only unwrapped') });
  });

  it.each([
    ['enveloped.der', /cannot be opened: it is encrypted/],
    ['detached.der', /cannot be opened: it is a detached signature/],
  ])('refuses %s with what it is', (name, reason) => {
    const opened = openPdf(fixture(name));
    expect(opened.ok).toBe(false);
    expect(!opened.ok && opened.reason.text).toMatch(reason);
  });

  it('refuses TNEF by name, and an empty file', () => {
    expect(openPdf(Buffer.concat([Buffer.from([0x78, 0x9f, 0x3e, 0x22]), pdf]))).toEqual({
      ok: false,
      reason: said('The file is an Outlook TNEF container (winmail.dat), not a PDF; send the PDF itself'),
    });
    expect(openPdf(Buffer.alloc(0))).toEqual({ ok: false, reason: said('The file is empty; send it again') });
  });

  it('sniffPdf, on arrival, lets a container through and refuses what holds no PDF', () => {
    expect(sniffPdf(fixture('signed.der'))).toBeUndefined();
    expect(sniffPdf(Buffer.from('hello'))).toEqual({ ok: false, reason: said('The file is not a PDF (no %PDF- header); send the invoice as a PDF file') });
  });
});
