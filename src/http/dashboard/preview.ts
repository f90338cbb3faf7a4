// The first page of an invoice's PDF as a PNG, rendered on the server with pdfjs-dist onto an
// @napi-rs/canvas (a prebuilt binary from the registry; nothing downloaded at run time) and kept
// in DATA_DIR/previews by the PDF's SHA-256, so each document is rendered once. One render at a
// time: a large PDF never takes both cores from the API.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const WIDTH = 640;
const MAX_HEIGHT = 1400;
const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
// the 14 standard PDF fonts (Helvetica, Times, ...) as pdfjs ships them, read from disk
const STANDARD_FONTS = `${path.join(PDFJS_DIR, 'standard_fonts')}/`;

let queue: Promise<unknown> = Promise.resolve();
const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
};

async function render(pdf: Buffer): Promise<Buffer> {
  // loaded at the first preview, not at start: the canvas binary brings its own threads and memory
  const { createCanvas, DOMMatrix, ImageData, Path2D } = await import('@napi-rs/canvas');
  // pdfjs draws glyphs and images with these browser classes; Node has none of them
  const g = globalThis as Record<string, unknown>;
  g.Path2D ??= Path2D;
  g.DOMMatrix ??= DOMMatrix;
  g.ImageData ??= ImageData;
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(pdf),
    isEvalSupported: false,
    disableFontFace: true,
    standardFontDataUrl: STANDARD_FONTS,
    verbosity: 0,
  }).promise;
  try {
    const page = await doc.getPage(1);
    const unit = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: Math.min(WIDTH / unit.width, MAX_HEIGHT / unit.height) });
    const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport }).promise;
    return await canvas.encode('png');
  } finally {
    await doc.destroy();
  }
}

export class PreviewCache {
  constructor(private readonly dir: string) {}

  /** The PNG of the PDF's first page; undefined when the PDF cannot be rendered. */
  async firstPage(pdf: Buffer): Promise<Buffer | undefined> {
    const file = path.join(this.dir, `${createHash('sha256').update(pdf).digest('hex')}.png`);
    const cached = await readFile(file).catch(() => undefined);
    if (cached) return cached;
    const png = await oneAtATime(() => render(pdf)).catch(() => undefined);
    if (!png) return undefined;
    await mkdir(this.dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, png);
    await rename(tmp, file); // readers never see half a file
    return png;
  }
}
