// Every file a message carries, at any depth: the one walker of both the whole-message path and
// the large-message path (which hands it the parts it downloaded). Containers are opened:
// attached messages (message/rfc822, forward as attachment, nested), Outlook's TNEF
// (winmail.dat), CMS signed data (S/MIME smime.p7m, CAdES .pdf.p7m), uuencode (body text and
// x-uuencode parts). A leaf is a PDF by its bytes (`%PDF-`), or a ZIP archive. Pure but for parsing.
import { unreadArchiveKind, unreadArchiveReason } from '../../domain/archive.ts';
import { unwrapSignedData } from '../../formats/cms-container.ts';
import { intakeReason, type IntakeReason } from '../../domain/intake-reasons.ts';
import { cleanFileName } from './mime-names.ts';
import { partKind, type MessagePart } from './pdf-parts.ts';
import { isTnef, readTnef } from './tnef-reader.ts';
import { hasUuBlock, uudecodeAll } from './uudecode.ts';

export interface FoundFile {
  /** the decoded name; undefined when the message gave none */
  filename?: string;
  kind: 'pdf' | 'zip' | 'xml';
  bytes: Buffer;
  /** the containers it came out of, outermost first (e.g. ["Invoice.eml", "winmail.dat"]) */
  via: string[];
  /** inside CMS signed data (or, for a CAdES .pdf.p7m handed over whole, of the file itself): whether the signature was verified or the content only unwrapped */
  signature?: 'verified' | 'unverified';
}

export interface WalkResult {
  files: FoundFile[];
  /** things that looked like files for intake and are not (a `.pdf` that is no PDF, an encrypted p7m) */
  problems: { filename: string; reason: IntakeReason }[];
  /** containers opened that held no PDF, with the reason to give when the message has no file at all */
  empty: string[];
}

/** Parses an attached message into its parts and body text (mailparser, in message-parser.ts). */
export type ParseEntity = (source: Buffer) => Promise<{ parts: MessagePart[]; text?: string }>;

const MAX_DEPTH = 6;
const MAX_FILES = 500;

const lower = (s: string | undefined) => (s ?? '').toLowerCase();
const isMessageType = (t: string) => t === 'message/rfc822' || t === 'message/global';
const isTnefPart = (p: MessagePart) => /ms-tnef/.test(lower(p.contentType)) || lower(cleanFileName(p.filename)) === 'winmail.dat' || isTnef(p.content);
const isSignaturePart = (p: MessagePart) => /pkcs7-signature/.test(lower(p.contentType)) || /\.p7s$/i.test(p.filename ?? '');
const maybeCms = (p: MessagePart) =>
  /pkcs7-mime|cms|octet-stream/.test(lower(p.contentType)) ||
  /\.p7m$/i.test(p.filename ?? '') ||
  p.content[0] === 0x30 ||
  /^-----BEGIN/.test(p.content.subarray(0, 16).toString('latin1'));
const isUuPart = (p: MessagePart) =>
  /x-uu(e|encode|decode)/.test(lower(p.contentType)) || /\.uue?$/i.test(p.filename ?? '') || hasUuBlock(p.content.subarray(0, 4096).toString('latin1'));
const looksLikeMessage = (b: Buffer) => /^(?:[A-Za-z0-9-]+:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+\r?\n/.test(b.subarray(0, 16384).toString('latin1'));

/**
 * Whether a part may be a container that holds files (attached message, TNEF, CMS, uuencode), from
 * its name, type and first bytes: the large-message path downloads those as it does PDFs.
 */
export function mayHoldFiles(part: MessagePart): boolean {
  if (isMessageType(lower(part.contentType)) || /\.eml$/i.test(part.filename ?? '')) return true;
  if (isTnefPart(part) || isUuPart(part)) return true;
  // CMS by its declared type or name, or by its first byte (DER) or a PEM line, not by octet-stream alone
  return !isSignaturePart(part) && maybeCms({ ...part, contentType: /octet-stream/i.test(part.contentType ?? '') ? undefined : part.contentType });
}

/** Walks a message's parts (and its body text, for uuencode) and collects the files in them. */
export async function walkMessage(parts: MessagePart[], text: string | undefined, parse: ParseEntity): Promise<WalkResult> {
  const result: WalkResult = { files: [], problems: [], empty: [] };
  await walkLevel(parts, text, [], undefined, 0, parse, result);
  return result;
}

async function walkLevel(
  parts: MessagePart[],
  text: string | undefined,
  via: string[],
  signature: FoundFile['signature'],
  depth: number,
  parse: ParseEntity,
  out: WalkResult,
): Promise<void> {
  for (const part of parts) await walkPart(part, via, signature, depth, parse, out);
  if (text && hasUuBlock(text)) {
    for (const f of uudecodeAll(text)) await walkPart({ filename: f.filename, content: f.bytes }, via, signature, depth + 1, parse, out);
  }
}

async function walkPart(
  part: MessagePart,
  outer: string[],
  signature: FoundFile['signature'],
  depth: number,
  parse: ParseEntity,
  out: WalkResult,
): Promise<void> {
  if (out.files.length >= MAX_FILES) return;
  // a large message's part comes with the attached messages the server opened around it
  const via = part.via?.length ? [...outer, ...part.via] : outer;
  const name = cleanFileName(part.filename);
  const type = lower(part.contentType);
  const tooDeep = depth >= MAX_DEPTH;
  // a container: open it, and note it when it held no file
  const open = async (label: string, inner: () => Promise<void>) => {
    if (tooDeep) {
      out.problems.push({ filename: label, reason: intakeReason('attachment_nested_deep', { name: label, depth: MAX_DEPTH }) });
      return;
    }
    const before = out.files.length + out.problems.length;
    await inner();
    if (out.files.length + out.problems.length === before) out.empty.push(`${label} held no PDF`);
  };

  if (isMessageType(type) || (/\.eml$/i.test(name ?? '') && looksLikeMessage(part.content))) {
    const label = name ?? 'the attached message';
    return open(label, async () => {
      const inner = await parse(part.content);
      await walkLevel(inner.parts, inner.text, [...via, label], signature, depth + 1, parse, out);
    });
  }
  if (isTnefPart(part) && isTnef(part.content)) {
    const label = name ?? 'winmail.dat';
    return open(label, async () => {
      const tnef = readTnef(part.content);
      if (!tnef.attachments.length && tnef.damaged) {
        out.problems.push({ filename: label, reason: intakeReason('attachment_damaged', { name: label, error: tnef.damaged }) });
        return;
      }
      const inner = tnef.attachments.map((a) => ({ filename: a.filename, content: Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.length) }));
      await walkLevel(inner, undefined, [...via, label], signature, depth + 1, parse, out);
    });
  }
  if (!isSignaturePart(part) && maybeCms(part)) {
    const cms = unwrapSignedData(part.content);
    if (cms) {
      const label = name ?? 'smime.p7m';
      if ('error' in cms) {
        out.problems.push({ filename: label, reason: intakeReason('attachment_unopenable', { name: label, error: cms.error }) });
        return;
      }
      return open(label, async () => {
        const content = Buffer.from(cms.content.buffer, cms.content.byteOffset, cms.content.length);
        const sig = cms.verified ? 'verified' : 'unverified';
        const path = [...via, label];
        // CAdES: invoice.pdf.p7m holds invoice.pdf. It goes to intake as it came, which unwraps it
        // as on every channel and says in the record whether the signature was verified.
        if (partKind(content, undefined, undefined) === 'pdf') {
          out.files.push({ filename: name ?? 'signed.pdf.p7m', kind: 'pdf', bytes: part.content, via, signature: sig });
          return;
        }
        // S/MIME: smime.p7m holds a MIME entity (or, rarely, another file)
        const innerName = name && /\.p7m$/i.test(name) && !/^smime\.p7m$/i.test(name) ? name.replace(/\.p7m$/i, '') : undefined;
        if (partKind(content, innerName, undefined) || !looksLikeMessage(content)) {
          await walkPart({ filename: innerName, content }, path, sig, depth + 1, parse, out);
        } else {
          const inner = await parse(content);
          await walkLevel(inner.parts, inner.text, path, sig, depth + 1, parse, out);
        }
      });
    }
  }
  // a leaf: sniffed only after the containers, whose first KB may show the `%PDF-` they wrap
  const kind = partKind(part.content, name, part.contentType);
  if (kind) {
    out.files.push({ filename: name, kind, bytes: part.content, via, ...(signature ? { signature } : {}) });
    return;
  }
  if (isUuPart(part)) {
    const files = uudecodeAll(part.content.toString('latin1'));
    if (files.length) {
      const label = name ?? 'the uuencoded part';
      return open(label, async () => {
        for (const f of files) await walkPart({ filename: f.filename, content: f.bytes }, [...via, label], signature, depth + 1, parse, out);
      });
    }
  }
  // an archive of another format: said, never dropped (docs/mail.md, "Attachments")
  const unread = unreadArchiveReason(name, part.content);
  if (unread) out.problems.push({ filename: name ?? `archive.${unreadArchiveKind(name, part.content)!.toLowerCase()}`, reason: unread });
  else if (name && /\.pdf$/i.test(name)) out.problems.push({ filename: name, reason: intakeReason('attachment_not_pdf', { filename: name }) });
}
