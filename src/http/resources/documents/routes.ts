// The document resource's routes.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import { ApiError } from '../../api-error.ts';
import { BodyForPath, BodyWithInvoice, DocParams, DocumentSchema, InvoiceParams, MAX_CONTENT_CHARS } from './schema.ts';
import { HAL, commonErrors, security } from '../../schemas/common.ts';
import { PdfContentError } from '../../../services/document-service.ts';
import { Type } from '../../schemas/typebox.ts';
import { decodeBase64 } from '../../../domain/base64.ts';
import { fileReply } from '../../file-responses.ts';
import { linkBase, scopeOf } from '../../request-context.ts';
import { plainReason } from '../../../domain/intake-reasons.ts';
import { presentDocument } from './presenter.ts';

/** The Content field's bytes; text that is not Base64 is not PDF content. */
export function contentBytes(content: string): Buffer {
  if (content.length > MAX_CONTENT_CHARS) throw ApiError.badRequest(`Field content is longer than ${MAX_CONTENT_CHARS} characters`, 'content');
  const bytes = decodeBase64(content);
  if (!bytes) throw new PdfContentError(plainReason('The content is not Base64'));
  return bytes;
}

/** File names for documents: a plain name ending in .pdf. */
function checkFilename(filename: string): string {
  const name = filename.normalize('NFC').trim();
  if (!name || /[\\/\u0000-\u001f]/.test(name) || name === '.pdf') throw ApiError.wrongFormat('filename');
  if (!/\.pdf$/i.test(name)) throw ApiError.badRequest('Field filename must end in .pdf', 'filename');
  return name;
}

export const documentRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = linkBase(c.config.publicUrl);
    const tags = ['documents'];
    const created = { 201: DocumentSchema, 200: DocumentSchema, ...commonErrors(404, 410, 415) };

    // biome-ignore lint/suspicious/noExplicitAny: shared by two routes whose request generics differ
    const attach = async (req: any, reply: any, invoiceId: string) => {
      const b = req.body as { filename: string; mediatype: string; content: string };
      if (b.mediatype.trim().toLowerCase() !== 'application/pdf') throw ApiError.badRequest('Field mediatype must be application/pdf', 'mediatype');
      const filename = checkFilename(b.filename);
      const bytes = contentBytes(b.content);
      const { document, changed } = await c.documents.attach(scopeOf(req), { invoiceId, filename, mediaType: 'application/pdf', bytes, source: 'api' });
      return reply
        .code(changed ? 201 : 200)
        .type(HAL)
        .send(presentDocument(base(req), document));
    };

    app.post(
      '/v2/documents/:invoice_id',
      {
        schema: {
          tags,
          security,
          summary: 'Attach a PDF to an invoice; a new file replaces the old one (200 when the same bytes were already attached)',
          params: InvoiceParams,
          body: BodyForPath,
          response: created,
        },
      },
      (req, reply) => attach(req, reply, req.params.invoice_id),
    );

    app.post(
      '/v2/documents',
      {
        schema: { tags, security, summary: 'Attach a PDF to the invoice named in the body', body: BodyWithInvoice, response: created },
      },
      (req, reply) => attach(req, reply, req.body.invoice),
    );

    app.get(
      '/v2/documents/:document_id',
      {
        schema: {
          tags,
          security,
          summary: "The attached document's metadata",
          params: DocParams,
          response: { 200: DocumentSchema, ...commonErrors(404, 410) },
        },
      },
      async (req, reply) => reply.type(HAL).send(presentDocument(base(req), await c.documents.get(scopeOf(req), req.params.document_id))),
    );

    app.get(
      '/v2/documents/:document_id/content',
      {
        schema: {
          tags,
          security,
          params: DocParams,
          summary: 'The attached PDF itself (application/pdf); with format=xml, the XML e-invoice it was rendered from, as received (application/xml)',
          querystring: Type.Object({
            format: Type.Optional(
              Type.Union([Type.Literal('pdf'), Type.Literal('xml')], {
                description: 'pdf (default), or xml: the original of a document rendered from an XML e-invoice (404 for any other document)',
              }),
            ),
          }),
          response: {
            200: {
              description: 'The PDF bytes, or the XML',
              content: {
                'application/pdf': { schema: { type: 'string', format: 'binary' } },
                'application/xml': { schema: { type: 'string', format: 'binary' } },
              },
            },
            ...commonErrors(400, 404, 410),
          },
        },
      },
      async (req, reply) => {
        if (req.query.format === 'xml') {
          const { name, bytes } = await c.documents.original(scopeOf(req), req.params.document_id);
          return fileReply(reply, 'application/xml', name).send(bytes as never);
        }
        const { meta, bytes } = await c.documents.content(scopeOf(req), req.params.document_id);
        // a download, never this origin's page (http/file-responses.ts)
        return fileReply(reply, 'application/pdf', meta.filename).send(bytes as never);
      },
    );

    app.delete(
      '/v2/documents/:document_id',
      {
        schema: {
          tags,
          security,
          summary: 'Delete the document (by document id or invoice id)',
          params: DocParams,
          response: { 204: Type.Null(), ...commonErrors(404, 410) },
        },
      },
      async (req, reply) => {
        await c.documents.delete(scopeOf(req), req.params.document_id);
        return reply.code(204).send(null);
      },
    );
  };
