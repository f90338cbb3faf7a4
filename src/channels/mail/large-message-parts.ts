// A message too large to download whole: its body structure (with the parts' decoded names),
// the first bytes of each candidate part to sniff `%PDF-`, then only the PDFs, and only those
// small enough to be attached.
import type { Logger } from '../../platform/logger.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/pdf.ts';
import type { MailboxSession, MessageMeta } from './imap-mailbox.ts';
import type { MessageContent } from './mail-intake.ts';
import { candidateStructureParts, decodePartStart, isPdfBytes, maxEncodedSize, misnamedPdfs, type MessagePart } from './pdf-parts.ts';

export async function loadPdfParts(session: MailboxSession, meta: MessageMeta, log: Logger): Promise<MessageContent | undefined> {
  const structure = await session.fetchStructure(meta.uid);
  if (!structure) return undefined;
  const candidates = candidateStructureParts(structure);
  const starts = await session.fetchPartStarts(meta.uid, candidates.map((p) => p.part), 2048);
  const isPdf = (p: { part: string; encoding: string }) => isPdfBytes(decodePartStart(starts.get(p.part) ?? Buffer.alloc(0), p.encoding));
  const pdfs = candidates.filter(isPdf);
  const limit = maxEncodedSize(MAX_DOCUMENT_BYTES);
  const wanted = pdfs.filter((p) => p.size <= limit);
  const contents = await session.downloadParts(meta.uid, wanted.map((p) => p.part));
  const parts: MessagePart[] = wanted.map((p) => ({ filename: p.filename, contentType: p.type, content: contents.get(p.part) ?? Buffer.alloc(0) }));
  const skipped = pdfs.filter((p) => p.size > limit).map((p) => ({ filename: p.filename ?? `part-${p.part}.pdf`, size: p.size }));
  log.info({ uid: meta.uid, size: meta.size, parts: wanted.length, skipped: skipped.length }, 'large mail message: downloaded its PDF parts only');
  return { kind: 'parts', headers: meta.headers, parts, skipped, notPdf: misnamedPdfs(candidates, isPdf) };
}
