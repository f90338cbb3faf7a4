// The document resource's schemas: what its routes take and answer, in the OpenAPI document too.
import { Id, Link } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';

export const DocumentSchema = Type.Object(
  {
    resource: Type.Literal('document'),
    id: Type.String(),
    invoice: Type.String(),
    filename: Type.String(),
    mediatype: Type.String(),
    size: Type.Integer(),
    sha256: Type.String(),
    source: Type.String({ description: 'api, ftp, sftp, mail or http (POST /v2/imports)' }),
    createdAt: Type.String({ format: 'date-time' }),
    _links: Type.Object({
      self: Link,
      content: Type.Object({ href: Type.String(), type: Type.Literal('application/pdf') }),
      original: Type.Optional(
        Type.Object(
          { href: Type.String(), type: Type.Literal('application/xml') },
          { description: 'Only for a PDF rendered from an XML e-invoice: that XML, as received (docs/matching.md)' },
        ),
      ),
    }),
  },
  { $id: 'Document' },
);

export const MAX_CONTENT_CHARS = 5_242_880;

const fileFields = {
  filename: Type.String({ maxLength: 250, description: 'Original file name ending in .pdf' }),
  mediatype: Type.String({ maxLength: 50, description: 'application/pdf' }),
  content: Type.String({ maxLength: MAX_CONTENT_CHARS, description: 'The PDF in Base64, at most 5242880 characters' }),
};

export const BodyWithInvoice = Type.Object({ invoice: Id('Service invoice id'), ...fileFields });

export const BodyForPath = Type.Object({ invoice: Type.Optional(Id('Ignored: the path names the invoice')), ...fileFields });

export const InvoiceParams = Type.Object({ invoice_id: Id('Service invoice id') });

export const DocParams = Type.Object({ document_id: Id('Document id, or the id of the invoice whose document is meant') });
