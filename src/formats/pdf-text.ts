// A PDF's text layer, read with pdf.js (pdfjs-dist's legacy build, which runs on Node 20): the
// words of its first pages, '' for a scan without text. Pure; loaded only where it runs (a PDF
// check thread), as pdf-lib is.

export async function readPdfText(bytes: Uint8Array, maxPages: number): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    let out = '';
    for (let i = 1; i <= Math.min(doc.numPages, maxPages); i++) {
      const content = await (await doc.getPage(i)).getTextContent();
      out += `${content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : ' ') : '')).join('')}\n`;
    }
    return out;
  } finally {
    await doc.destroy();
  }
}
