// The import resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { ImportRecord } from '../../../domain/intake.ts';
import { HAL } from '../../schemas/common.ts';
import { verdictInWords } from '../../../domain/sender-verdict-words.ts';

export const presentImport = (base: string, r: ImportRecord) => ({
  resource: 'import' as const,
  id: r.id,
  channel: r.channel,
  sender: r.sender,
  filename: r.filename,
  size: r.size,
  sha256: r.sha256,
  status: r.status,
  invoice: r.invoiceId,
  document: r.documentId,
  reason: r.reason,
  reasonCode: r.reasonCode ?? null,
  reasonParams: r.reasonCode ? (r.reasonParams ?? {}) : null,
  archive: r.archiveId ?? null,
  receivedAt: r.receivedAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
  attachedAt: r.attachedAt ? r.attachedAt.toISOString() : null,
  matchedBy: r.matchedBy,
  uploadKey: r.uploadKeyId ?? null,
  senderCheck: r.senderVerdict ? verdictInWords(r.senderVerdict) : null,
  _links: {
    self: { href: `${base}/v2/imports/${r.id}`, type: HAL } as const,
    ...(r.invoiceId ? { invoice: { href: `${base}/v2/invoices/${r.invoiceId}`, type: HAL } as const } : {}),
    ...(r.documentId ? { document: { href: `${base}/v2/documents/${r.documentId}`, type: HAL } as const } : {}),
    ...(r.archiveId ? { archive: { href: `${base}/v2/imports/${r.archiveId}`, type: HAL } as const } : {}),
  },
});
