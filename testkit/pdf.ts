// A small real PDF, for tests and benchmarks.
import { randomBytes } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A real one-page PDF; `padTo` pads it (inside a stream, still valid) to about that many bytes. */
export async function makePdf(text = 'Invoice', padTo = 0): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText(text, { x: 50, y: 780, size: 14, font });
  if (padTo > 0) {
    // incompressible filler so the size is what the test asked for
    const filler = randomBytes(padTo); // random bytes: deflate cannot shrink them
    doc.attach(filler, 'filler.bin', { mimeType: 'application/octet-stream' });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/**
 * A PDF whose catalog's /Pages is no page tree (a font dictionary): pdf-lib opens it and then fails
 * with "_this.catalog.Pages(...).traverse is not a function", the message issue 42 saw reach people.
 */
export function pdfWithBrokenPageTree(): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Font >>'];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A one-page PDF with these lines of text (Helvetica), as an accounting program prints an invoice without an e-invoice. */
export async function textPdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 11, font }));
  return Buffer.from(await doc.save());
}
