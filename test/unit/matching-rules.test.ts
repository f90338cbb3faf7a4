// The pure parts of matching beyond the file name: tokens of a name or subject, what found
// invoices mean, the e-invoice XML, and the PDF's embedded files and password (real PDFs).
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { einvoiceNumber } from '../../src/domain/einvoice.ts';
import { checkPdf } from '../../src/domain/pdf.ts';
import { ambiguityReason, resolve, tokenCandidates } from '../../src/intake/match-tokens.ts';
import { makePdf } from '../helpers/fixtures.ts';
import { ciiXml, einvoicePdf, encryptedPdf, ublXml, zugferd1Xml } from '../helpers/einvoice.ts';

const texts = (s: string) => tokenCandidates(s).map((c) => c.text);
const inv = (id: string, invoiceNumber: string) => ({ id, invoiceNumber });

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
    // a long subject: only its first 64 runs are read
    expect(texts(`${'word '.repeat(64)}2026-0117`)).not.toContain('2026-0117');
    expect(texts(`${'word '.repeat(62)}2026-0117`)).toContain('2026-0117');
  });
});

describe('what the found invoices mean', () => {
  const cands = tokenCandidates('Factuur 2026-0117');
  it('one invoice: a match', () => {
    expect(resolve(cands, [inv('inv_a', '2026-0117')])).toEqual({ invoiceId: 'inv_a' });
    expect(resolve(cands, [])).toBeUndefined();
  });

  it('two invoices named by different tokens: ambiguous, each number named', () => {
    const two = tokenCandidates('2026-0117 and 2026-0118');
    expect(resolve(two, [inv('inv_b', '2026-0118'), inv('inv_a', '2026-0117')])).toEqual({ ambiguous: ['2026-0117', '2026-0118'] });
    expect(ambiguityReason(['2026-0117', '2026-0118'])).toBe('The file could be invoice 2026-0117 or 2026-0118; rename it or assign it');
    expect(ambiguityReason(['A', 'B', 'C'])).toBe('The file could be invoice A, B or C; rename it or assign it');
  });

  it('a token inside a longer one that is a number gives way to it; the exact case wins over a folded one', () => {
    expect(resolve(tokenCandidates('INV-2026-0117_signed'), [inv('inv_a', '2026-0117'), inv('inv_l', 'INV-2026-0117')])).toEqual({ invoiceId: 'inv_l' });
    expect(resolve(tokenCandidates('Factuur AB-1234'), [inv('inv_u', 'AB-1234'), inv('inv_l', 'ab-1234')])).toEqual({ invoiceId: 'inv_u' });
    expect(resolve(tokenCandidates('Factuur Ab-1234'), [inv('inv_u', 'AB-1234'), inv('inv_l', 'ab-1234')])).toEqual({ ambiguous: ['AB-1234', 'ab-1234'] });
  });

  it('e-invoice numbers stand alone: two different ones are ambiguous', () => {
    expect(resolve([{ text: '2026-0117' }, { text: '2026-0117-B' }], [inv('inv_a', '2026-0117'), inv('inv_b', '2026-0117-B')])).toEqual({ ambiguous: ['2026-0117', '2026-0117-B'] });
  });
});

describe('the e-invoice XML', () => {
  it('reads CII (Factur-X, ZUGFeRD 2.x, XRechnung), ZUGFeRD 1.0 and UBL numbers as text', () => {
    expect(einvoiceNumber(ciiXml('2026-0117'))).toBe('2026-0117');
    expect(einvoiceNumber(zugferd1Xml('0042'))).toBe('0042');
    expect(einvoiceNumber(ublXml('INV 7'))).toBe('INV 7');
    expect(einvoiceNumber('<Order><ID>1</ID></Order>')).toBeUndefined();
    expect(einvoiceNumber('not xml <<<')).toBeUndefined();
  });

  it('expands no entity: a DOCTYPE cannot smuggle a number in or blow up (billion laughs)', () => {
    const smuggled = '<?xml version="1.0"?><!DOCTYPE i [<!ENTITY n "2026-0117">]><Invoice><ID>&n;</ID></Invoice>';
    expect(einvoiceNumber(smuggled)).toBe('&n;');
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${'&a;'.repeat(10)}">`).join('')}]><Invoice><ID>&bbbbbbbbb;</ID></Invoice>`;
    expect(einvoiceNumber(laughs)).toBe('&bbbbbbbbb;');
  });
});

describe('the PDF check reads the embedded e-invoice and the password', () => {
  it('finds the number in factur-x.xml, in a /Kids name tree, and not in files that are no XML', async () => {
    expect(await checkPdf(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }))).toEqual({ ok: true, pages: 1, einvoiceNumbers: ['2026-0117'] });
    expect(await checkPdf(await einvoicePdf({ 'ZUGFeRD-invoice.xml': zugferd1Xml('Z-1001'), 'notes.txt': ciiXml('X-1') }, { kids: true })))
      .toEqual({ ok: true, pages: 1, einvoiceNumbers: ['Z-1001'] });
    expect(await checkPdf(await makePdf('plain'))).toEqual({ ok: true, pages: 1, einvoiceNumbers: [] });
  });

  it.each(['R2', 'R3', 'R4', 'R5', 'R6'] as const)('%s: refuses a PDF that needs a password to open, accepts one with only an owner password', async (revision) => {
    const pdf = await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') });
    expect(await checkPdf(encryptedPdf(pdf, 'user-secret', revision))).toEqual({ ok: false, reason: 'The PDF is protected with a password' });
    expect(await checkPdf(encryptedPdf(pdf, '', revision))).toMatchObject({ ok: true, pages: 1 });
  });

  it('accepts an owner-password PDF whose page tree sits in an encrypted object stream (pages unknown)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const pdf = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(await checkPdf(encryptedPdf(pdf, ''))).toEqual({ ok: true, pages: null, einvoiceNumbers: [] });
    expect(await checkPdf(encryptedPdf(pdf, 'user-secret'))).toEqual({ ok: false, reason: 'The PDF is protected with a password' });
  });
});
