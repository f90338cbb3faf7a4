// The quick structural check (src/formats/pdf-structure.ts) follows the cross-reference data of
// the layouts writers produce (classic tables, xref and object streams, linearized, incremental
// updates), and says nothing of files it cannot follow or that are encrypted, which the full parse
// then decides. Whatever it accepts, the full parse accepts too.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { checkPdf, structureFirst } from '../../src/formats/pdf.ts';
import { pageCountByStructure, readStructure } from '../../src/formats/pdf-structure.ts';
import { einvoicePdf, encryptedPdf, ciiXml } from '../helpers/einvoice.ts';

async function pdfWith(pages: number, useObjectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage().drawText(`page ${i + 1}`, { font });
  return Buffer.from(await doc.save({ useObjectStreams, addDefaultPage: false }));
}

/** `pdf` rewritten by qpdf with these options. */
function qpdf(pdf: Buffer, ...args: string[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'structure-pdf-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', [path.join(dir, 'in.pdf'), ...args, path.join(dir, 'out.pdf')]);
    return fs.readFileSync(path.join(dir, 'out.pdf'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** An incremental update: a new Info dictionary and an xref section pointing back with /Prev. */
function withIncrementalUpdate(pdf: Buffer): Buffer {
  const tail = pdf.toString('latin1');
  const prev = Number([...tail.matchAll(/startxref\s+(\d+)\s+%%EOF/g)].at(-1)![1]);
  const root = /\/Root\s+(\d+ \d+ R)/.exec(tail)![1];
  const size = Number(/\/Size\s+(\d+)/.exec(tail)![1]);
  const obj = `${size} 0 obj\n<< /Producer (update) >>\nendobj\n`;
  const objAt = pdf.length;
  const xrefAt = objAt + obj.length;
  const xref = `xref\n${size} 1\n${String(objAt).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(obj + xref, 'latin1')]);
}

describe('PDF structure check', () => {
  it('follows classic tables, xref and object streams, linearized files and incremental updates', async () => {
    const classic = await pdfWith(3, false);
    const streams = await pdfWith(2, true);
    expect(pageCountByStructure(classic)).toBe(3);
    expect(pageCountByStructure(streams)).toBe(2);
    expect(pageCountByStructure(qpdf(classic, '--object-streams=generate'))).toBe(3);
    expect(pageCountByStructure(qpdf(classic, '--linearize'))).toBe(3);
    expect(pageCountByStructure(qpdf(streams, '--qdf'))).toBe(2);
    expect(pageCountByStructure(withIncrementalUpdate(classic))).toBe(3);
    expect(pageCountByStructure(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }))).toBe(1);
  });

  it('reads past what follows the last %%EOF (a comment, junk), and an update appended after such bytes', async () => {
    const classic = await pdfWith(2, false);
    expect(pageCountByStructure(Buffer.concat([classic, Buffer.from('% 17\n')]))).toBe(2);
    expect(pageCountByStructure(Buffer.concat([classic, Buffer.from('\r\n\u0000\u0000 trailing junk')]))).toBe(2);
    expect(pageCountByStructure(withIncrementalUpdate(Buffer.concat([classic, Buffer.from('% 17\n')])))).toBe(2);
    // junk that names another offset before the real end: the last one counts
    expect(
      pageCountByStructure(Buffer.concat([Buffer.from(classic.toString('latin1').replace(/%%EOF\s*$/, '%%EOF\nstartxref\n7\n%%EOF\n'), 'latin1')])),
    ).toBeUndefined();
  });

  it('says nothing of files it cannot vouch for: encrypted, truncated, no pages, broken page tree, garbage', async () => {
    const classic = await pdfWith(1, false);
    expect(pageCountByStructure(encryptedPdf(classic, ''))).toBeUndefined();
    expect(pageCountByStructure(classic.subarray(0, classic.length - 30))).toBeUndefined();
    expect(pageCountByStructure(await pdfWith(0, false))).toBeUndefined();
    expect(pageCountByStructure(Buffer.from(classic.toString('latin1').replace('/Type /Pages', '/Type /Pagez'), 'latin1'))).toBeUndefined();
    const wrongOffset = Buffer.from(
      classic.toString('latin1').replace(/startxref\s+(\d+)/, (_, n) => `startxref\n${Number(n) - 7}`),
      'latin1',
    );
    expect(pageCountByStructure(wrongOffset)).toBeUndefined();
    expect(pageCountByStructure(Buffer.from('%PDF-1.7\nnot really\nstartxref\n9\n%%EOF\n'))).toBeUndefined();
  });

  it('what it accepts, the full parse accepts; what it leaves, the full parse decides', async () => {
    const classic = await pdfWith(1, false);
    const samples = [
      classic,
      await pdfWith(2, true),
      qpdf(classic, '--object-streams=generate'),
      qpdf(classic, '--linearize'),
      withIncrementalUpdate(classic),
      Buffer.concat([classic, Buffer.from('% 17\n')]),
      encryptedPdf(classic, ''),
      encryptedPdf(classic, 'secret'),
      classic.subarray(0, classic.length - 30),
      await pdfWith(0, false),
    ];
    let full = 0;
    const counted = structureFirst(async (bytes) => (full++, checkPdf(bytes)));
    for (const pdf of samples) {
      const quick = pageCountByStructure(pdf);
      const verdict = await checkPdf(pdf);
      if (quick !== undefined) expect(verdict).toMatchObject({ ok: true, pages: quick });
      expect((await counted(pdf)).ok).toBe(verdict.ok);
    }
    expect(full).toBe(samples.filter((pdf) => pageCountByStructure(pdf) === undefined).length);
    expect(full).toBe(4);
  });

  it('lets a PDF whose attachments are all plainly not XML skip the full parse, and sends every XML-looking one there', async () => {
    const padding = new Uint8Array(4096).fill(7);
    const mayHoldXml = (pdf: Buffer) => readStructure(pdf)?.mayHoldXml;
    expect(mayHoldXml(await pdfWith(1, false))).toBe(false);
    expect(mayHoldXml(await einvoicePdf({ 'padding.bin': padding }))).toBe(false);
    expect(mayHoldXml(await einvoicePdf({ 'photo.jpg': padding, 'sheet.xlsx': padding }, { kids: true }))).toBe(false);
    expect(mayHoldXml(qpdf(await einvoicePdf({ 'padding.bin': padding }), '--object-streams=generate'))).toBe(false);
    expect(mayHoldXml(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }))).toBe(true);
    expect(mayHoldXml(await einvoicePdf({ 'padding.bin': padding, 'INVOICE.XML': ciiXml('2026-0117') }))).toBe(true);
    expect(mayHoldXml(await einvoicePdf({ 'zugferd-invoice.xml': ciiXml('2026-0117') }, { kids: true }))).toBe(true);
    expect(mayHoldXml(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }, { afOnly: true }))).toBe(true);
    expect(mayHoldXml(qpdf(await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }), '--object-streams=generate'))).toBe(true);
    // labels written otherwise than in plain ASCII: UTF-16 (hex, with its BOM), octal escapes; a label by
    // reference. The file specification's /UF is swapped in place, padded to its length so offsets hold.
    const plain = (await einvoicePdf({ 'padding.bin': padding })).toString('latin1');
    const uf = /\/UF (<FEFF[0-9A-F]+>)/.exec(plain)![1];
    const withUf = (label: string) => Buffer.from(plain.replace(uf, label.padEnd(uf.length)), 'latin1');
    expect(mayHoldXml(withUf('<FEFF00620069006E>'))).toBe(false);
    expect(mayHoldXml(withUf('<FEFF0061002E0078006D006C>'))).toBe(true);
    expect(mayHoldXml(withUf('(a.\\170ml)'))).toBe(true);
    expect(mayHoldXml(withUf('1 0 R'))).toBe(true);
  });

  it("gives the full parse's verdict for real-world layouts of attachments, and reads every XML it could", async () => {
    const padding = new Uint8Array(4096).fill(7);
    const samples = [
      await einvoicePdf({ 'padding.bin': padding }),
      await einvoicePdf({ 'photo.jpg': padding }, { kids: true }),
      await einvoicePdf({ 'scan.tif': padding }, { afOnly: true }),
      await einvoicePdf({ 'factur-x.xml': ciiXml('2026-0117') }),
      await einvoicePdf({ 'xrechnung.xml': ciiXml('2026-0118') }, { afOnly: true }),
    ];
    let full = 0;
    const counted = structureFirst(async (bytes) => (full++, checkPdf(bytes)));
    for (const pdf of samples) expect(await counted(pdf)).toEqual(await checkPdf(pdf));
    expect(full).toBe(2);
  });
});
