// A message too large to download whole: its body structure (with the parts' decoded names),
// the first bytes of each candidate part to sniff `%PDF-` (or a ZIP archive's `PK`, or a
// container: TNEF, CMS, uuencode, an attached message), then only those, and only those small
// enough: 5 MB for a PDF, `maxArchiveBytes` for an archive or container. Text bodies are
// downloaded too (uuencoded files hide there). The message walker then sees what a whole
// message would have shown it.
import type { Logger } from '../../platform/logger.ts';
import { unreadArchiveKind } from '../../domain/archive.ts';
import { MAX_DOCUMENT_BYTES } from '../../domain/document-facts.ts';
import type { MailboxSession, MessageMeta } from './imap-mailbox.ts';
import type { MessageContent } from './mail-intake-types.ts';
import { mayHoldFiles } from './message-walker.ts';
import { candidateStructureParts, decodePartStart, maxEncodedSize, partKind, type MessagePart } from './pdf-parts.ts';
import { decodeCharset } from './mime-names.ts';

export async function loadPdfParts(
  session: MailboxSession,
  meta: MessageMeta,
  log: Logger,
  maxArchiveBytes = MAX_DOCUMENT_BYTES,
): Promise<MessageContent | undefined> {
  const structure = await session.fetchStructure(meta.uid);
  if (!structure) return undefined;
  const candidates = candidateStructureParts(structure);
  // a text body larger than a PDF may be is no carrier of one
  const texts = candidateStructureParts(structure, 'text').filter((p) => p.size <= maxEncodedSize(MAX_DOCUMENT_BYTES) * 1.1);
  const starts = await session.fetchPartStarts(
    meta.uid,
    candidates.map((p) => p.part),
    2048,
  );
  const start = (p: { part: string; encoding: string }) => decodePartStart(starts.get(p.part) ?? Buffer.alloc(0), p.encoding);
  const kindOf = (p: (typeof candidates)[number]) => {
    const head = start(p);
    // a container first: a CMS or TNEF wrapper shows the `%PDF-` it holds in its first KB
    return mayHoldFiles({ filename: p.filename, contentType: p.type, content: head }) ? 'container' : partKind(head, p.filename, p.type);
  };
  const files = candidates.flatMap((p) => {
    const kind = kindOf(p);
    return kind ? [{ ...p, kind, maxBytes: kind === 'zip' || kind === 'container' ? maxArchiveBytes : MAX_DOCUMENT_BYTES }] : [];
  });
  const wanted = files.filter((p) => p.size <= maxEncodedSize(p.maxBytes));
  const contents = await session.downloadParts(
    meta.uid,
    [...wanted, ...texts].map((p) => p.part),
  );
  const parts: MessagePart[] = wanted.map((p) => ({ filename: p.filename, contentType: p.type, content: contents.get(p.part) ?? Buffer.alloc(0), via: p.via }));
  // a 7z or RAR archive is not read: its first bytes are enough for the walker to say so
  for (const p of candidates)
    if (!files.some((f) => f.part === p.part) && unreadArchiveKind(p.filename, start(p)))
      parts.push({ filename: p.filename, contentType: p.type, content: start(p), via: p.via });
  const text = texts.map((p) => decodeCharset(contents.get(p.part) ?? Buffer.alloc(0), 'utf-8')).join('\n');
  const skipped = files
    .filter((p) => !wanted.includes(p))
    .map((p) => ({ filename: p.filename ?? `part-${p.part}.${p.kind === 'container' ? 'bin' : p.kind}`, size: p.size, maxBytes: p.maxBytes }));
  // a part named .pdf that is neither a PDF nor a container is not downloaded: it is no PDF
  const notPdf = candidates.filter((p) => p.filename && /\.pdf$/i.test(p.filename) && !files.some((f) => f.part === p.part)).map((p) => p.filename!);
  log.info({ uid: meta.uid, size: meta.size, parts: wanted.length, skipped: skipped.length }, 'large mail message: downloaded its PDF parts only');
  return { kind: 'parts', headers: meta.headers, parts, text, skipped, notPdf };
}
