// A message too large to download whole: its body structure (with the parts' decoded names),
// the first bytes of each candidate part to sniff `%PDF-` (or a ZIP archive's `PK`), then only
// those, and only those small enough: 5 MB for a PDF, `maxArchiveBytes` for an archive.
import type { Logger } from '../../platform/logger.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/pdf.ts';
import type { MailboxSession, MessageMeta } from './imap-mailbox.ts';
import type { MessageContent } from './mail-intake.ts';
import { candidateStructureParts, decodePartStart, isPdfBytes, maxEncodedSize, misnamedPdfs, partKind, type MessagePart } from './pdf-parts.ts';

export async function loadPdfParts(session: MailboxSession, meta: MessageMeta, log: Logger, maxArchiveBytes = MAX_DOCUMENT_BYTES): Promise<MessageContent | undefined> {
  const structure = await session.fetchStructure(meta.uid);
  if (!structure) return undefined;
  const candidates = candidateStructureParts(structure);
  const starts = await session.fetchPartStarts(meta.uid, candidates.map((p) => p.part), 2048);
  const start = (p: { part: string; encoding: string }) => decodePartStart(starts.get(p.part) ?? Buffer.alloc(0), p.encoding);
  const files = candidates.flatMap((p) => {
    const kind = partKind(start(p), p.filename, p.type);
    return kind ? [{ ...p, kind, maxBytes: kind === 'zip' ? maxArchiveBytes : MAX_DOCUMENT_BYTES }] : [];
  });
  const wanted = files.filter((p) => p.size <= maxEncodedSize(p.maxBytes));
  const contents = await session.downloadParts(meta.uid, wanted.map((p) => p.part));
  const parts: MessagePart[] = wanted.map((p) => ({ filename: p.filename, contentType: p.type, content: contents.get(p.part) ?? Buffer.alloc(0) }));
  const skipped = files.filter((p) => !wanted.includes(p)).map((p) => ({ filename: p.filename ?? `part-${p.part}.${p.kind}`, size: p.size, maxBytes: p.maxBytes }));
  log.info({ uid: meta.uid, size: meta.size, parts: wanted.length, skipped: skipped.length }, 'large mail message: downloaded its PDF parts only');
  return { kind: 'parts', headers: meta.headers, parts, skipped, notPdf: misnamedPdfs(candidates, (p) => isPdfBytes(start(p))) };
}
