// The document resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { DocumentMeta } from '../../../domain/models.ts';
import { self } from '../../hal.ts';

export const presentDocument = (base: string, d: DocumentMeta) => ({
  resource: 'document' as const,
  id: d.id,
  invoice: d.invoiceId,
  filename: d.filename,
  mediatype: d.mediaType,
  size: d.size,
  sha256: d.sha256,
  source: d.source,
  createdAt: d.createdAt.toISOString(),
  _links: {
    ...self(base, `/v2/documents/${d.id}`),
    content: { href: `${base}/v2/documents/${d.id}/content`, type: 'application/pdf' } as const,
    ...(d.originalName ? { original: { href: `${base}/v2/documents/${d.id}/content?format=xml`, type: 'application/xml' } as const } : {}),
  },
});
