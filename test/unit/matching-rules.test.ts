// The pure parts of matching beyond the file name: tokens of a name or subject, what found
// invoices mean, the e-invoice XML, and the PDF's embedded files and password (real PDFs).
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { checkPdf } from '../../src/formats/pdf.ts';
import { tokenCandidates } from '../../src/domain/match-names.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf, encryptedPdf, zugferd1Xml } from '../helpers/einvoice.ts';
import { said } from '../helpers/reasons.ts';

const texts = (s: string) => tokenCandidates(s).map((c) => c.text);

describe('tokens of a name or a subject', () => {
  it('are whole runs of letters and digits, alone or with what stood between them', () => {
    expect(texts('Factuur 2026-0117')).toEqual(['Factuur', 'Factuur 2026', 'Factuur 2026-0117', '2026', '2026-0117', '0117']);
    expect(texts('INV-2026-0117_signed')).toContain('INV-2026-0117');
    expect(texts('Re: Rechnung Nr. 2026/17 (Kopie)')).toContain('2026/17');
  });

  it('never cut a run, and are never shorter than 4 characters', () => {
    expect(texts('2026-01170')).not.toContain('2026-0117');
    expect(texts('x 117 ab')).toEqual(['x 117', 'x 117 ab', '117 ab']);
    expect(texts('A-1')).toEqual([]);
  });

  it('have at most 8 parts and 100 characters', () => {
    expect(Math.max(...texts('a1 b2 c3 d4 e5 f6 g7 h8 i9 j0').map((t) => t.split(' ').length))).toBe(8);
    expect(texts(`${'x'.repeat(101)} 2026-0117`)).toEqual(['2026', '2026-0117', '0117']);
    // a long subject: only its first 128 runs are read
    expect(texts(`${'word '.repeat(128)}2026-0117`)).not.toContain('2026-0117');
    expect(texts(`${'word '.repeat(126)}2026-0117`)).toContain('2026-0117');
  });
});

describe('the PDF check reads the embedded e-invoice and the password', () => {
  it('finds the number in factur-x.xml, in a /Kids name tree, and not in files that are no XML', async () => {
    expect(await checkPdf(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }))).toEqual({
      ok: true,
      pages: 1,
      einvoices: [{ kind: 'invoice', number: '2026-0117' }],
    });
    expect(await checkPdf(await einvoicePdf({ 'ZUGFeRD-invoice.xml': zugferd1Xml('Z-1001'), 'notes.txt': ciiXml('X-1') }, { kids: true }))).toEqual({
      ok: true,
      pages: 1,
      einvoices: [{ kind: 'invoice', number: 'Z-1001' }],
    });
    expect(await checkPdf(await makePdf('plain'))).toEqual({ ok: true, pages: 1, einvoices: [] });
  });

  it.each(['R2', 'R3', 'R4', 'R5', 'R6'] as const)(
    '%s: refuses a PDF that needs a password to open, accepts one with only an owner password',
    async (revision) => {
      const pdf = await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') });
      expect(await checkPdf(encryptedPdf(pdf, 'user-secret', revision))).toEqual({
        ok: false,
        reason: said('The PDF is protected with a password, so it cannot be checked or shown; send it without a password'),
      });
      expect(await checkPdf(encryptedPdf(pdf, '', revision))).toMatchObject({ ok: true, pages: 1 });
    },
  );

  it('accepts an owner-password PDF whose page tree sits in an encrypted object stream (pages unknown)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const pdf = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(await checkPdf(encryptedPdf(pdf, ''))).toEqual({ ok: true, pages: null, einvoices: [] });
    expect(await checkPdf(encryptedPdf(pdf, 'user-secret'))).toEqual({
      ok: false,
      reason: said('The PDF is protected with a password, so it cannot be checked or shown; send it without a password'),
    });
  });
});
