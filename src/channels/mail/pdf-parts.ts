// Which parts of a message are PDF files: every part whose bytes say PDF (`%PDF-`), whatever
// its declared type (application/octet-stream too) or disposition (inline too); and ZIP archives
// (named `.zip` or typed as ZIP: Office files are ZIP bytes too), which intake unpacks. Pure.
import type { MessageStructureObject } from 'imapflow';
import { isArchiveName, isZipBytes } from '../../domain/archive.ts';
import { looksLikeEinvoiceXml } from '../../formats/einvoice.ts';
import { cleanFileName } from './mime-names.ts';

/** Readers accept `%PDF-` within the first 1 KB (some generators prepend junk). */
export function isPdfBytes(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

export interface MessagePart {
  /** the decoded file name, if the part has one */
  filename?: string;
  contentType?: string;
  content: Buffer;
  /** the attached messages the server already opened around this part (large messages) */
  via?: string[];
}

export interface PdfFile {
  /** position among the message's PDFs, 0-based: identifies the file when a claim resumes */
  index: number;
  /** a ZIP archive's name ends in .zip */
  filename: string;
  bytes: Buffer;
}

/**
 * What a part is, from its (first) bytes, its name and its declared type; undefined: not a file for
 * intake. An XML part is one when it is an e-invoice by its root element (XRechnung, Peppol, Factur-X's
 * XML), whatever its type (application/xml, text/xml, octet-stream): intake renders it as a PDF.
 */
export function partKind(start: Uint8Array, filename: string | undefined, contentType: string | undefined): 'pdf' | 'zip' | 'xml' | undefined {
  if (isZipBytes(start) && (filename ? isArchiveName(filename) : /zip/i.test(contentType ?? ''))) return 'zip';
  if (isPdfBytes(start)) return 'pdf';
  return looksLikeEinvoiceXml(start) ? 'xml' : undefined;
}

export function selectPdfs(parts: MessagePart[]): PdfFile[] {
  const out: PdfFile[] = [];
  for (const p of parts) {
    const name = cleanFileName(p.filename);
    const kind = partKind(p.content, name, p.contentType);
    if (!kind) continue;
    const index = out.length;
    out.push({ index, filename: name ?? `attachment-${index + 1}.${kind}`, bytes: p.content });
  }
  return out;
}

export interface StructurePart {
  part: string;
  type: string;
  /** encoded size on the server */
  size: number;
  /** Content-Transfer-Encoding */
  encoding: string;
  filename?: string;
  /** the attached messages it is inside, outermost first (undefined: none) */
  via?: string[];
}

/**
 * Leaf parts that may hold a PDF, for messages too large to download whole: everything but
 * text and multipart containers; parts of attached messages (message/rfc822) included. With
 * `text`: the text/plain parts instead (uuencoded files hide there). imapflow has decoded the
 * names (RFC 2047, RFC 2231) from the structure already.
 */
export function candidateStructureParts(root: MessageStructureObject, which: 'files' | 'text' = 'files'): StructurePart[] {
  const out: StructurePart[] = [];
  const walk = (node: MessageStructureObject, isRoot: boolean, via: string[] = []) => {
    const type = (node.type || '').toLowerCase();
    // an attached message sent base64-encoded (against RFC 2046): the server's split of it is
    // nonsense, so it is a leaf that the walker opens
    const encodedMessage = type.startsWith('message/') && /^(base64|quoted-printable)$/i.test(node.encoding ?? '');
    const name = () => cleanFileName(node.dispositionParameters?.filename) ?? cleanFileName(node.parameters?.name);
    if (node.childNodes?.length && !encodedMessage) {
      const inside = type.startsWith('message/') ? [...via, name() ?? 'the attached message'] : via;
      for (const child of node.childNodes) walk(child, false, inside);
      return;
    }
    if (type.startsWith('multipart/')) return;
    // text/xml is a file here (an XML e-invoice), not text
    if (which === 'text' ? type !== 'text/plain' : type.startsWith('text/') && type !== 'text/xml') return;
    out.push({
      part: node.part ?? (isRoot ? '1' : ''),
      type,
      size: node.size ?? 0,
      encoding: (node.encoding || '7bit').toLowerCase(),
      filename: name(),
      via: via.length ? via : undefined,
    });
  };
  walk(root, true);
  return out.filter((p) => p.part);
}

/** The largest encoded (base64) size a part of `maxBytes` decoded bytes can have, with line breaks. */
export const maxEncodedSize = (maxBytes: number) => Math.ceil(((maxBytes * 4) / 3) * (78 / 76)) + 1024;

/** Decodes the first bytes of a part fetched in its transfer encoding (enough to sniff `%PDF-`). */
export function decodePartStart(raw: Buffer, encoding: string): Buffer {
  if (encoding === 'base64') {
    const text = raw.toString('latin1').replace(/[^A-Za-z0-9+/]/g, '');
    return Buffer.from(text.slice(0, text.length - (text.length % 4)), 'base64');
  }
  if (encoding === 'quoted-printable') {
    return Buffer.from(
      raw
        .toString('latin1')
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    );
  }
  return raw;
}
