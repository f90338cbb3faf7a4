// The intake API: the records of received files (GET) and a third channel, POST /v2/imports,
// which goes through the same pipeline and matching as FTP and e-mail.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../schemas/typebox.ts';
import type { HttpDeps } from '../http-deps.ts';
import { INTAKE_STATUSES, MATCHED_BY, type ImportRecord } from '../../domain/intake.ts';
import { INTAKE_REASONS } from '../../domain/intake-reasons.ts';
import { verdictInWords } from '../../domain/sender-verdict-words.ts';
import { linkBase, scopeOf } from '../request-context.ts';
import { commonErrors, HAL, Id, Link, Nullable, security } from '../schemas/common.ts';
import { contentBytes, MAX_CONTENT_CHARS } from './documents.ts';
import { listRoute } from './list-route.ts';
import type { KeyScope } from '../../domain/upload-keys.ts';
import { recordChange } from '../trail-actors.ts';

const Time = Type.String({ format: 'date-time' });
export const ImportSchema = Type.Object(
  {
    resource: Type.Literal('import'),
    id: Type.String(),
    channel: Type.String({ enum: ['ftp', 'sftp', 'mail', 'http'] }),
    sender: Type.String({ description: 'FTP user@address, e-mail From address, or api:<account> for POST /v2/imports' }),
    filename: Type.String({ description: 'The name as received' }),
    size: Type.Integer(),
    sha256: Type.String(),
    status: Type.String({
      enum: [...INTAKE_STATUSES],
      description: 'waiting: no invoice with that id or number yet; the file is retried until the match window ends. unpacked: a ZIP archive whose files became imports of their own (their archive field names it). held: from an e-mail sender the account does not allow (GET /v2/account/senders), until released (POST /v2/imports/{id}/release) or discarded',
    }),
    invoice: Nullable(Type.String({ description: 'The invoice it was matched to' })),
    document: Nullable(Type.String({ description: 'The document it became' })),
    reason: Nullable(Type.String({ description: 'Why it failed, or what it waits for, in words for people (English)' })),
    reasonCode: Nullable(Type.String({
      enum: Object.keys(INTAKE_REASONS),
      description: 'The reason as a code, for programs and translations (docs/api.md, "Reason codes"); null when the reason has no code (records from before codes, rare combinations)',
    })),
    reasonParams: Nullable(Type.Record(Type.String(), Type.Unknown(), {
      description: 'The values the reason text names, by the placeholder names of its code (dates as ISO timestamps, amounts as {cents, currency}, alternatives as arrays); notes: further coded reasons that follow the text',
    })),
    archive: Nullable(Type.String({ description: 'The import of the ZIP archive this file was unpacked from' })),
    receivedAt: Time,
    updatedAt: Time,
    attachedAt: Nullable(Time),
    matchedBy: Nullable(Type.String({
      enum: [...MATCHED_BY],
      description: 'The strongest evidence that found the attached file\'s invoice (docs/matching.md): its name is the invoice id or number, its e-invoice (inside the PDF, or the XML itself), a number inside its name, the e-mail subject, the number and total in the PDF\'s text, or assigned by a person',
    })),
    uploadKey: Nullable(Type.String({ description: 'The upload key (upk_...) the file came with; null for the API key, SSH keys and mail' })),
    senderCheck: Nullable(Type.String({
      description: 'E-mail only: who sent the message, as far as anyone checked, in words (English): "Sender authenticated (From a@b.example): DMARC pass, SPF pass (b.example), DKIM pass (b.example); checked on receipt". Null for the other channels (docs/mail.md, "Who sent it")',
    })),
    _links: Type.Object({ self: Link, invoice: Type.Optional(Link), document: Type.Optional(Link), archive: Type.Optional(Link) }),
  },
  { $id: 'Import' },
);

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

const CreateBody = Type.Object({
  filename: Type.String({ minLength: 1, maxLength: 250, description: '<invoice_id>.pdf or <invoice_number>.pdf; otherwise the e-invoice inside the PDF or an invoice number inside the name, ranked, conflicts refused (docs/matching.md); a .pdf.p7m signature container is unwrapped; a name ending in .zip is a ZIP archive whose PDFs each become an import' }),
  // no maxLength: contentBytes checks the length, because ajv's maxLength counts code points one
  // by one, which costs about a millisecond on a 100 KB file's Base64
  content: Type.String({ description: `The PDF (or ZIP archive) in Base64, at most ${MAX_CONTENT_CHARS} characters` }),
});
const Params = Type.Object({ import_id: Id('Import id (imp_...)') });

export const importRoutes = (c: HttpDeps): FastifyPluginAsyncTypebox => async (app) => {
  const base = linkBase(c.config.publicUrl);
  const tags = ['imports'];

  app.post('/v2/imports', {
    schema: {
      tags, security, body: CreateBody, response: { 202: ImportSchema, ...commonErrors(415) },
      summary: 'Hand in a PDF to be matched to an invoice by its file name, like an FTP upload or an e-mail',
      description: 'Answers 202 with the import record once the file is stored and queued. A file that is refused at once (not a PDF, empty, a name with path parts) is recorded with status failed and its reason. A ZIP archive answers 202 once every file in it is stored and queued: its record has status unpacked (or failed, with the reason, when the archive as a whole is refused) and each file is an import of its own whose archive field names it. Poll GET /v2/imports/{id} for the outcome.',
    },
  }, async (req, reply) => {
    const scope: KeyScope = scopeOf(req);
    const bytes = contentBytes(req.body.content);
    const record = await c.intake.receive({ scope, channel: 'http', sender: `api:${scope.accountId}`, filename: req.body.filename, bytes, traceId: req.id, uploadKeyId: scope.uploadKey?.id });
    return reply.code(202).type(HAL).send(presentImport(base(req), record));
  });

  listRoute(app, c.config.publicUrl, {
    path: '/v2/imports', key: 'imports', item: ImportSchema, tags, summary: 'List received files (FTP, e-mail, POST /v2/imports), newest first',
    filter: { name: 'status', description: 'received, waiting, attached, failed, unpacked or held' }, list: (scope: KeyScope, page, status) => c.intake.list(scope, page, status, scope.uploadKey?.id), present: presentImport,
  });

  app.get('/v2/imports/:import_id', {
    schema: { tags, security, summary: 'One received file and what became of it', params: Params, response: { 200: ImportSchema, ...commonErrors(404) } },
  }, async (req, reply) => reply.type(HAL).send(presentImport(base(req), await c.intake.get(scopeOf(req), req.params.import_id))));

  const conflict = 'conflict: the file is attached already, or its content is gone (refused on arrival, or past its retention)';
  app.post('/v2/imports/:import_id/retry', {
    schema: {
      tags, security, params: Params, response: { 200: ImportSchema, ...commonErrors(404, 409, 410) },
      summary: 'Match a failed file again now (its invoice may exist by now); a waiting one runs at once',
      description: `The match window is not extended: a file whose invoice still does not exist fails again. 409 ${conflict}.`,
    },
  }, async (req, reply) => {
    const record = await c.importActions.retry(scopeOf(req), req.params.import_id);
    await recordChange(c, req, { scope: scopeOf(req), action: 'import.retried', target: record.id, detail: { filename: record.filename } });
    return reply.type(HAL).send(presentImport(base(req), record));
  });

  app.post('/v2/imports/:import_id/attach', {
    schema: {
      tags, security, params: Params, response: { 200: ImportSchema, ...commonErrors(404, 409, 410, 422) },
      body: Type.Object({ invoice: Type.String({ minLength: 1, maxLength: 100, description: 'The invoice id (inv_...) or invoice number' }) }),
      summary: 'Attach a waiting or failed file to an invoice by hand',
      description: `Attaches through the same path as POST /v2/documents; the invoice's document is replaced. 404 with field invoice when no such invoice exists; 422 when the file is not a usable PDF; 409 ${conflict}.`,
    },
  }, async (req, reply) => {
    const record = await c.importActions.attach(scopeOf(req), req.params.import_id, req.body.invoice);
    await recordChange(c, req, { scope: scopeOf(req), action: 'import.assigned', target: record.id, detail: { filename: record.filename, invoice: req.body.invoice } });
    return reply.type(HAL).send(presentImport(base(req), record));
  });

  app.post('/v2/imports/:import_id/release', {
    // no body at all is {}: release without adding the sender
    preValidation: async (req) => {
      req.body ??= {};
    },
    schema: {
      tags, security, params: Params, response: { 200: ImportSchema, ...commonErrors(404, 409, 410) },
      body: Type.Object({ addSender: Type.Optional(Type.Boolean({ description: "true: put the file's sender on the list of senders (GET /v2/account/senders) in the same step" })) }),
      summary: 'Release a held file (its sender was not allowed): it is matched like any file',
      description: 'A file from a sender the account\'s policy does not allow is held; released, it goes on to matching. With {"AddSender": true} the sender\'s address is listed too, so its next authenticated mail is not held. 409 when the file is not held. Discard a held file with DELETE /v2/imports/{id}.',
    },
  }, async (req, reply) => {
    const addSender = req.body?.addSender === true;
    const record = await c.importActions.release(scopeOf(req), req.params.import_id, addSender);
    await recordChange(c, req, { scope: scopeOf(req), action: 'import.released', target: record.id, detail: { filename: record.filename, sender: record.sender, addSender } });
    return reply.type(HAL).send(presentImport(base(req), record));
  });

  app.delete('/v2/imports/:import_id', {
    schema: {
      tags, security, params: Params, response: { 204: Type.Null(), ...commonErrors(404, 409, 410) },
      summary: 'Discard a file that is not attached',
      description: 'It leaves the lists and its stored bytes are dropped; a later read answers 410. An attached file is a document: delete that with DELETE /v2/documents/{id} (409 here).',
    },
  }, async (req, reply) => {
    await c.importActions.discard(scopeOf(req), req.params.import_id);
    await recordChange(c, req, { scope: scopeOf(req), action: 'import.discarded', target: req.params.import_id });
    return reply.code(204).send(null);
  });
};
