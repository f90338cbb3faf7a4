// The PDF check pool's tasks (a piscina worker). Plain .mjs so that it starts under any loader
// (vitest, `node --import tsx`, the build): the default task runs the one PDF check of the domain,
// `render` renders an XML e-invoice as a PDF, `text` reads a PDF's text; each from the module the pool names, and tsx is
// registered first only when those modules are TypeScript source.
import fs from 'node:fs';
import { workerData } from 'piscina';

// pdf-lib reports recoverable oddities on the console; the verdict is what counts
console.log = console.warn = () => {};

if (workerData.checkerUrl.endsWith('.ts')) (await import('tsx/esm/api')).register();
const { checkPdf, damagedPdf } = await import(workerData.checkerUrl);
let fonts;

export default async function check({ bytes }) {
  try {
    return await checkPdf(bytes);
  } catch {
    return damagedPdf(); // a library's message never becomes a reason
  }
}

/** The PDF's text layer (domain/pdf-text.ts), '' when it has none (a scan). */
export async function text({ bytes, maxPages }) {
  return (await import(workerData.textUrl)).readPdfText(bytes, maxPages);
}

export async function render({ bytes }) {
  const { renderXmlInvoice } = await import(workerData.rendererUrl);
  fonts ??= { regular: fs.readFileSync(workerData.fonts.regular), bold: fs.readFileSync(workerData.fonts.bold) };
  try {
    return await renderXmlInvoice(bytes, fonts);
  } catch (e) {
    return { ok: false, reason: `The XML e-invoice could not be rendered: ${String(e?.message ?? e).split('\n')[0].slice(0, 200)}` };
  }
}
