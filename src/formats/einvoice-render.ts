// A readable PDF of an XML e-invoice (docs/matching.md, "XML e-invoices"): seller, buyer, number,
// dates, lines, VAT breakdown, totals and payment terms, in the document's language, with the
// original XML embedded unchanged as its associated file (PDF/A-3 style: the catalog's /AF,
// AFRelationship /Source) and a line saying the page is rendered from that XML, which stays the
// original. Pure: pdf-lib and fontkit; the caller hands in the font files (DejaVu Sans).
import fontkit from '@pdf-lib/fontkit';
import { AFRelationship, PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { EinvoiceModel } from './einvoice-model.ts';
import { LABELS, languageOf, type Labels } from './einvoice-labels.ts';

export interface RenderFonts {
  regular: Uint8Array;
  bold: Uint8Array;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 9;
const LEAD = 12.5;

/** The name the standards give the embedded XML: Factur-X's factur-x.xml, XRechnung's xrechnung.xml. */
export function embeddedXmlName(m: EinvoiceModel): string {
  if (/xrechnung/i.test(m.specification ?? '')) return 'xrechnung.xml';
  return m.syntax === 'cii' ? 'factur-x.xml' : 'xrechnung.xml';
}

export async function renderEinvoice(m: EinvoiceModel, xml: Uint8Array, fonts: RenderFonts): Promise<Uint8Array> {
  const language = languageOf(m);
  const l = LABELS[language];
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const [regular, bold] = [await doc.embedFont(fonts.regular, { subset: true }), await doc.embedFont(fonts.bold, { subset: true })];
  const xmlName = embeddedXmlName(m);
  doc.setTitle(`${m.creditNote ? l.creditNote : l.invoice} ${m.number}`);
  doc.setLanguage(language);
  doc.setProducer('invoice-intake');
  await doc.attach(xml, xmlName, { mimeType: 'text/xml', description: l.embedded, afRelationship: AFRelationship.Source });

  const money = (v: string | undefined) => (v === undefined || v === '' ? '' : formatMoney(v, m.currency, language));
  const date = (v: string | undefined) =>
    v && /^\d{4}-\d{2}-\d{2}$/.test(v)
      ? new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${v}T00:00:00Z`))
      : (v ?? '');
  const w = new Writer({ doc, regular, bold, l, xmlName });

  w.text(`${m.creditNote ? l.creditNote : l.invoice} ${m.number}`, { font: bold, size: 16 });
  w.gap(4);
  w.pairs([
    [m.creditNote ? l.creditNumber : l.number, m.number],
    [m.creditNote ? l.creditDate : l.date, date(m.issueDate)],
    [l.dueDate, date(m.dueDate)],
    [l.buyerReference, m.buyerReference ?? ''],
  ]);
  w.gap(6);
  w.columns([
    [l.seller, m.seller.name, ...m.seller.address, m.seller.country ?? '', m.seller.vatId ? `${l.vatId} ${m.seller.vatId}` : ''],
    [l.buyer, m.buyer.name, ...m.buyer.address, m.buyer.country ?? '', m.buyer.vatId ? `${l.vatId} ${m.buyer.vatId}` : ''],
  ]);
  w.gap(8);
  w.table(
    [l.position, l.description, l.quantity, l.unitPrice, l.amount],
    [35, 240, 70, 75, 75],
    // a line's id (BT-126) may be a text; a long one is shown as its position
    m.lines.map((x, i) => [
      x.id.length <= 5 ? x.id : String(i + 1),
      x.name,
      `${x.quantity}${x.unit ? ` ${unitName(x.unit)}` : ''}`,
      money(x.unitPrice),
      money(x.net),
    ]),
  );
  w.gap(8);
  if (m.vat.length) {
    w.text(l.vatBreakdown, { font: bold });
    w.table(
      [l.category, l.rate, l.taxable, l.vat],
      [70, 60, 150, 110],
      m.vat.map((v) => [v.category, v.rate ? `${v.rate} %` : '', money(v.base), money(v.amount)]),
    );
    w.gap(6);
  }
  w.pairs(
    [
      [l.net, money(m.totals.net ?? m.totals.lines)],
      [l.vatTotal, money(m.totals.vat)],
      [l.grand, money(m.totals.grand)],
      [l.prepaid, money(m.totals.prepaid)],
      [l.due, money(m.totals.due)],
    ],
    { bold: [l.due] },
  );
  w.gap(8);
  w.pairs([
    [l.paymentTerms, m.paymentTerms ?? ''],
    [l.iban, m.iban ?? ''],
    [l.paymentReference, m.paymentReference ?? ''],
  ]);
  if (m.notes.length) {
    w.gap(6);
    w.text(l.notes, { font: bold });
    for (const n of m.notes) w.text(n.replace(/^#\w+#/, ''));
  }
  return doc.save({ useObjectStreams: false });
}

/** An amount as its currency is written in the language (`1.210,50 €` in German); unknown codes as `1210.50 XYZ`. */
export function formatMoney(value: string, currency: string, language: string): string {
  const n = Number(value);
  if (!Number.isFinite(n)) return value;
  try {
    return new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: Math.max(2, value.split('.')[1]?.length ?? 0),
    }).format(n);
  } catch {
    return `${value} ${currency}`;
  }
}

const UNITS: Record<string, string> = {
  C62: 'pc',
  H87: 'pc',
  XPP: 'pc',
  EA: 'ea',
  HUR: 'h',
  DAY: 'd',
  KGM: 'kg',
  LTR: 'l',
  MTR: 'm',
  MON: 'mo',
  ANN: 'yr',
  KWH: 'kWh',
};
const unitName = (code: string) => UNITS[code] ?? code;

interface WriterOptions {
  doc: PDFDocument;
  regular: PDFFont;
  bold: PDFFont;
  l: Labels;
  xmlName: string;
}

/** Writes top to bottom, wrapping long text and starting a new page (with the footer line on each) when one is full. */
class Writer {
  private page!: PDFPage;
  private y = 0;

  private readonly doc: PDFDocument;
  private readonly regular: PDFFont;
  private readonly bold: PDFFont;
  private readonly l: Labels;
  private readonly xmlName: string;

  constructor(o: WriterOptions) {
    this.doc = o.doc;
    this.regular = o.regular;
    this.bold = o.bold;
    this.l = o.l;
    this.xmlName = o.xmlName;
    this.newPage();
  }

  private newPage(): void {
    this.page = this.doc.addPage(A4);
    this.y = A4[1] - MARGIN;
    const footer = this.l.rendered.replace('{file}', this.xmlName);
    let y = MARGIN - 10;
    for (const line of wrap(footer, this.regular, 7, A4[0] - 2 * MARGIN)) {
      this.page.drawText(line, { x: MARGIN, y, size: 7, font: this.regular, color: rgb(0.35, 0.35, 0.35) });
      y -= 9;
    }
  }

  private room(height: number): void {
    if (this.y - height < MARGIN + 20) this.newPage();
  }

  gap(points: number): void {
    this.y -= points;
  }

  text(s: string, o: { font?: PDFFont; size?: number; x?: number; width?: number } = {}): void {
    const font = o.font ?? this.regular;
    const size = o.size ?? SIZE;
    for (const line of wrap(s, font, size, o.width ?? A4[0] - 2 * MARGIN)) {
      this.room(size * 1.4);
      this.y -= size * 1.4;
      this.page.drawText(line, { x: o.x ?? MARGIN, y: this.y, size, font });
    }
  }

  pairs(rows: [string, string][], o: { bold?: string[] } = {}): void {
    for (const [k, v] of rows.filter(([, v]) => v)) {
      this.room(LEAD);
      const font = o.bold?.includes(k) ? this.bold : this.regular;
      this.page.drawText(k, { x: MARGIN, y: this.y - LEAD, size: SIZE, font: this.bold });
      const lines = wrap(v, font, SIZE, 330);
      lines.forEach((line, i) => this.page.drawText(line, { x: MARGIN + 165, y: this.y - LEAD * (i + 1), size: SIZE, font }));
      this.y -= LEAD * lines.length;
    }
  }

  columns(blocks: string[][]): void {
    const width = (A4[0] - 2 * MARGIN) / blocks.length;
    const lines = blocks.map((b) =>
      b.filter(Boolean).flatMap((s, i) => wrap(s, i === 0 ? this.bold : this.regular, SIZE, width - 10).map((t) => ({ t, head: i === 0 }))),
    );
    this.room(LEAD * Math.max(...lines.map((x) => x.length)));
    lines.forEach((col, c) =>
      col.forEach((x, i) =>
        this.page.drawText(x.t, { x: MARGIN + c * width, y: this.y - LEAD * (i + 1), size: SIZE, font: x.head ? this.bold : this.regular }),
      ),
    );
    this.y -= LEAD * Math.max(...lines.map((x) => x.length));
  }

  table(head: string[], widths: number[], rows: string[][]): void {
    const draw = (cells: string[], font: PDFFont) => {
      const wrapped = cells.map((c, i) => wrap(c, font, SIZE, widths[i] - 6));
      const height = LEAD * Math.max(1, ...wrapped.map((x) => x.length));
      this.room(height);
      let x = MARGIN;
      wrapped.forEach((lines, i) => {
        // numbers right-aligned, text left
        lines.forEach((line, k) => {
          const right = i >= 2;
          const dx = right ? widths[i] - 6 - font.widthOfTextAtSize(line, SIZE) : 0;
          this.page.drawText(line, { x: x + dx, y: this.y - LEAD * (k + 1), size: SIZE, font });
        });
        x += widths[i];
      });
      this.y -= height;
    };
    draw(head, this.bold);
    this.page.drawLine({ start: { x: MARGIN, y: this.y - 2 }, end: { x: MARGIN + widths.reduce((a, b) => a + b, 0), y: this.y - 2 }, thickness: 0.5 });
    this.y -= 3;
    for (const r of rows) draw(r, this.regular);
  }
}

/** Lines of `s` that fit `width` at `size` (words kept whole unless one alone is too wide). */
function wrap(s: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  for (const para of printable(s, font).split('\n')) {
    let line = '';
    for (const word of para.split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, size) <= width) line = next;
      else {
        if (line) out.push(line);
        line = word;
        while (font.widthOfTextAtSize(line, size) > width && line.length > 1) {
          let cut = line.length - 1;
          while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
          out.push(line.slice(0, cut));
          line = line.slice(cut);
        }
      }
    }
    if (line) out.push(line);
  }
  return out.length ? out : [''];
}

const charsets = new WeakMap<PDFFont, Set<number>>();

/** Characters the font has no glyph for become `?`, so a rare script never breaks the page. */
function printable(s: string, font: PDFFont): string {
  let set = charsets.get(font);
  if (!set) charsets.set(font, (set = new Set(font.getCharacterSet())));
  return [...s.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')].map((ch) => (ch === '\n' || set.has(ch.codePointAt(0)!) ? ch : '?')).join('');
}
