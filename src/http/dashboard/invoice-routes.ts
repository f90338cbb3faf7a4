// One invoice (reached from every invoice number the dashboard shows): customer, amounts, status,
// the attached document with a preview of its first page, its history, and the files that tried
// to match it (attached to it, or whose name or invoice number contains its number).
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { signedInPage } from './flash.ts';
import { fileReply } from '../file-responses.ts';
import { PreviewCache } from './preview.ts';
import { onlySignedIn, signed } from './session.ts';

type IdRoute = { Params: { id: string } };

export async function invoiceRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const previews = new PreviewCache(path.resolve(c.config.dataDir, 'previews'));

  app.get<IdRoute>('/dashboard/invoices/:id', signedInPage(c.users), async (req, reply) => {
    const { scope } = signed(req);
    const invoice = await c.invoices.get(scope, req.params.id);
    const [document, candidates, account] = await Promise.all([
      invoice.document ? c.documents.get(scope, invoice.id).catch(() => undefined) : undefined,
      c.intake.search(scope, { text: invoice.invoiceNumber, limit: 50 }),
      c.accounts.get(scope.accountId),
    ]);
    // a file attached elsewhere only shares part of the number: not one that tried this invoice
    const files = candidates.filter((f) => f.invoiceId === invoice.id || !f.invoiceId);
    const steps = await Promise.all(files.map(async (f) => (await c.intakeHistory.list(scope, f.id)).map((h) => ({ ...h, file: f }))));
    const history = [
      ...steps.flat().filter((h) => h.status !== 'received' && (h.status !== 'attached' || h.file.invoiceId === invoice.id)),
      ...(document ? [{ at: document.createdAt, status: 'document' as const, reason: null, file: { id: '', filename: document.filename } }] : []),
    ].sort((a, b) => new Date(b.at).getTime() - new Date(a.at).getTime());
    return reply.view('invoice.eta', { title: invoice.invoiceNumber, account, invoice, document, files, history });
  });

  app.get<IdRoute>('/dashboard/invoices/:id/preview.png', onlySignedIn, async (req, reply) => {
    const { bytes } = await c.documents.content(signed(req).scope, req.params.id);
    const png = await previews.firstPage(bytes);
    if (!png) throw DomainError.notFound('preview', req.params.id);
    // shown in an <img> on the invoice's page: inline, but sandboxed and never sniffed like every file
    return fileReply(reply, 'image/png', `${req.params.id}-page-1.png`, 'inline').header('cache-control', 'private, max-age=86400').send(png);
  });
}
