// An e-invoice received as XML alone (XRechnung, Peppol BIS 3, Factur-X's XML without its PDF),
// rendered into a readable PDF that embeds it unchanged (einvoice-render.ts). Pure; the caller
// decides where it runs (a PDF check thread: it takes 100-300 ms of CPU).
import type { InvoiceReading } from './einvoice-model.ts';
import { readXmlInvoice } from './einvoice-model.ts';
import { embeddedXmlName, renderEinvoice, type RenderFonts } from './einvoice-render.ts';
import type { IntakeReason } from '../domain/intake-reasons.ts';

export type RenderedXmlInvoice = { ok: true; pdf: Uint8Array; reading: InvoiceReading; xmlName: string } | { ok: false; reason: IntakeReason };

export async function renderXmlInvoice(bytes: Uint8Array, fonts: RenderFonts): Promise<RenderedXmlInvoice> {
  const read = readXmlInvoice(bytes);
  if (!read.ok) return read;
  return { ok: true, pdf: await renderEinvoice(read.model, bytes, fonts), reading: read.reading, xmlName: embeddedXmlName(read.model) };
}
