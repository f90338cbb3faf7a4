// The intake API: the records of received files (GET) and a third channel, POST /v2/imports,
// which goes through the same pipeline and matching as FTP and e-mail.
// (A resource is this folder: schema.ts, presenter.ts, routes.ts, listed in ../api-resources.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HttpDeps } from '../../http-deps.ts';
import type { KeyScope } from '../../../domain/upload-keys.ts';
import { CreateBodies, CreateHeaders, ImportSchema, Params } from './schema.ts';
import { jsonForm, registerImportBodies, takeRawBody, takenUpload } from './import-bodies.ts';
import { HAL, commonErrors, security } from '../../schemas/common.ts';
import { Type } from '../../schemas/typebox.ts';
import { contentBytes } from '../documents/routes.ts';
import { linkBase, scopeOf } from '../../request-context.ts';
import { listRoute } from '../list-route.ts';
import { presentImport } from './presenter.ts';
import { recordedChange } from '../../trail-actors.ts';

export const importRoutes =
  (c: HttpDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const base = linkBase(c.config.publicUrl);
    const tags = ['imports'];

    // its own plugin: the raw body's parsers apply to this route only (import-bodies.ts)
    await app.register(async (upload) => {
      registerImportBodies(upload);
      upload.post(
        '/v2/imports',
        {
          preValidation: async (req) => jsonForm(req),
          preHandler: takeRawBody(c),
          schema: {
            tags,
            security,
            headers: CreateHeaders,
            body: CreateBodies,
            response: { 202: ImportSchema, ...commonErrors(413, 415) },
            summary: 'Hand in a PDF to be matched to an invoice by its file name, like an FTP upload or an e-mail',
            description:
              'Answers 202 with the import record once the file is stored and queued. A file that is refused at once (not a PDF, empty, a name with path parts) is recorded with status failed and its reason. A ZIP archive answers 202 once every file in it is stored and queued: its record has status unpacked (or failed, with the reason, when the archive as a whole is refused) and each file is an import of its own whose archive field names it. Poll GET /v2/imports/{id} for the outcome. The body is JSON (or form fields) with the file in Base64, at most 6 MB in all; or the file itself with its name in X-Filename (400 with field X-Filename when it is missing or not percent-encoded), streamed to the intake as it arrives: a ZIP archive up to ZIP_MAX_TOTAL_BYTES (200 MB), any other file 5 MB, larger is 413 while it streams, nothing kept. Any other Content-Type is 415.',
          },
        },
        async (req, reply) => {
          const scope: KeyScope = scopeOf(req);
          const file = { scope, channel: 'http' as const, sender: `api:${scope.accountId}`, traceId: req.id, uploadKeyId: scope.uploadKey?.id };
          const raw = takenUpload(req);
          const body = req.body as { filename: string; content: string }; // the JSON form, checked by jsonForm and its schema
          const record = raw
            ? await c.intake.receiveUpload({ ...file, filename: raw.filename }, raw.upload)
            : await c.intake.receive({ ...file, filename: body.filename, bytes: contentBytes(body.content) });
          return reply
            .code(202)
            .type(HAL)
            .send(presentImport(base(req), record));
        },
      );
    });

    listRoute(app, c.config.publicUrl, {
      path: '/v2/imports',
      key: 'imports',
      item: ImportSchema,
      tags,
      summary: 'List received files (FTP, e-mail, POST /v2/imports), newest first',
      filter: { name: 'status', description: 'received, waiting, attached, failed, unpacked or held' },
      list: (scope: KeyScope, page, status) => c.intake.list(scope, page, status, scope.uploadKey?.id),
      present: presentImport,
    });

    app.get(
      '/v2/imports/:import_id',
      {
        schema: { tags, security, summary: 'One received file and what became of it', params: Params, response: { 200: ImportSchema, ...commonErrors(404) } },
      },
      async (req, reply) => reply.type(HAL).send(presentImport(base(req), await c.intake.get(scopeOf(req), req.params.import_id))),
    );

    const conflict = 'conflict: the file is attached already, or its content is gone (refused on arrival, or past its retention)';
    app.post(
      '/v2/imports/:import_id/retry',
      {
        schema: {
          tags,
          security,
          params: Params,
          response: { 200: ImportSchema, ...commonErrors(404, 409, 410) },
          summary: 'Match a failed file again now (its invoice may exist by now); a waiting one runs at once',
          description: `The match window is not extended: a file whose invoice still does not exist fails again. 409 ${conflict}.`,
        },
      },
      async (req, reply) => {
        const record = await recordedChange(
          c,
          req,
          () => c.importActions.retry(scopeOf(req), req.params.import_id),
          (r) => ({ scope: scopeOf(req), action: 'import.retried', target: r.id, detail: { filename: r.filename } }),
        );
        return reply.type(HAL).send(presentImport(base(req), record));
      },
    );

    app.post(
      '/v2/imports/:import_id/attach',
      {
        schema: {
          tags,
          security,
          params: Params,
          response: { 200: ImportSchema, ...commonErrors(404, 409, 410, 422) },
          body: Type.Object({ invoice: Type.String({ minLength: 1, maxLength: 100, description: 'The invoice id (inv_...) or invoice number' }) }),
          summary: 'Attach a waiting or failed file to an invoice by hand',
          description: `Attaches through the same path as POST /v2/documents; the invoice's document is replaced. 404 with field invoice when no such invoice exists; 422 when the file is not a usable PDF; 409 ${conflict}.`,
        },
      },
      async (req, reply) => {
        const record = await recordedChange(
          c,
          req,
          () => c.importActions.attach(scopeOf(req), req.params.import_id, req.body.invoice),
          (r) => ({ scope: scopeOf(req), action: 'import.assigned', target: r.id, detail: { filename: r.filename, invoice: req.body.invoice } }),
        );
        return reply.type(HAL).send(presentImport(base(req), record));
      },
    );

    app.post(
      '/v2/imports/:import_id/release',
      {
        // no body at all is {}: release without adding the sender
        preValidation: async (req) => {
          req.body ??= {};
        },
        schema: {
          tags,
          security,
          params: Params,
          response: { 200: ImportSchema, ...commonErrors(404, 409, 410) },
          body: Type.Object({
            addSender: Type.Optional(
              Type.Boolean({ description: "true: put the file's sender on the list of senders (GET /v2/account/senders) in the same step" }),
            ),
          }),
          summary: 'Release a held file (its sender was not allowed): it is matched like any file',
          description:
            'A file from a sender the account\'s policy does not allow is held; released, it goes on to matching. With {"AddSender": true} the sender\'s address is listed too, so its next authenticated mail is not held. 409 when the file is not held. Discard a held file with DELETE /v2/imports/{id}.',
        },
      },
      async (req, reply) => {
        const addSender = req.body?.addSender === true;
        const record = await recordedChange(
          c,
          req,
          () => c.importActions.release(scopeOf(req), req.params.import_id, addSender),
          (r) => ({ scope: scopeOf(req), action: 'import.released', target: r.id, detail: { filename: r.filename, sender: r.sender, addSender } }),
        );
        return reply.type(HAL).send(presentImport(base(req), record));
      },
    );

    app.delete(
      '/v2/imports/:import_id',
      {
        schema: {
          tags,
          security,
          params: Params,
          response: { 204: Type.Null(), ...commonErrors(404, 409, 410) },
          summary: 'Discard a file that is not attached',
          description:
            'It leaves the lists and its stored bytes are dropped; a later read answers 410. An attached file is a document: delete that with DELETE /v2/documents/{id} (409 here).',
        },
      },
      async (req, reply) => {
        await recordedChange(
          c,
          req,
          () => c.importActions.discard(scopeOf(req), req.params.import_id),
          () => ({ scope: scopeOf(req), action: 'import.discarded', target: req.params.import_id }),
        );
        return reply.code(204).send(null);
      },
    );
  };
