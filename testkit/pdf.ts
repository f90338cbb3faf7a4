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
