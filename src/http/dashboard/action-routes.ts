// What a signed-in person changes: retry, assign or discard a received file, upload PDFs (the
// same intake as every channel), rotate a key, switch between live and test. Plain forms that
// answer 303 to a page that can be reloaded, their outcome in the flash (they work without
// JavaScript); the upload is a fetch from the drop zone.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { ApiError } from '../api-error.ts';
import { sendError } from '../error-handler.ts';
import { fileNameFromHeader } from '../file-name-header.ts';
import { redirectWith, type Flash } from './flash.ts';
import { onlySignedIn, signed } from './session.ts';
import { reasonWords } from './reason-words.ts';
import { allowed } from './roles.ts';
import { recordedChange, requestActor } from '../trail-actors.ts';

type Form = Record<string, string | undefined>;
type IdRoute = { Params: { id: string }; Body: Form };

export async function actionRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const back = (req: FastifyRequest, reply: FastifyReply, id: string, flash: Flash) =>
    redirectWith(c.users, req, reply, `/dashboard/files/${encodeURIComponent(id)}`, flash);

  /** A refusal the person can act on goes back to the file's page; not-found and gone stay errors. */
  const act = async (req: FastifyRequest, reply: FastifyReply, id: string, done: Flash['notice'], fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      if (e instanceof DomainError && (e.kind === 'conflict' || e.kind === 'unprocessable' || (e.kind === 'not_found' && e.field === 'invoice')))
        return back(req, reply, id, { error: { text: e.detail } });
      throw e;
    }
    return back(req, reply, id, { notice: done });
  };

  app.post<IdRoute>('/dashboard/files/:id/retry', onlySignedIn, async (req, reply) =>
    act(req, reply, req.params.id, { key: 'file.retried' }, async () => {
      await recordedChange(
        c,
        req,
        () => c.importActions.retry(signed(req).scope, req.params.id),
        (r) => ({ scope: signed(req).scope, action: 'import.retried', target: r.id, detail: { filename: r.filename } }),
      );
    }),
  );

  app.post<IdRoute>('/dashboard/files/:id/assign', onlySignedIn, async (req, reply) => {
    const invoice = req.body?.invoice?.trim();
    if (!invoice) return back(req, reply, req.params.id, { error: { key: 'file.enterNumber' } });
    return act(req, reply, req.params.id, { key: 'file.attached', params: { number: invoice } }, async () => {
      await recordedChange(
        c,
        req,
        () => c.importActions.attach(signed(req).scope, req.params.id, invoice),
        (r) => ({ scope: signed(req).scope, action: 'import.assigned', target: r.id, detail: { filename: r.filename, invoice } }),
      );
    });
  });

  // an owner's: a held file (its sender was not allowed) goes on to matching, its sender listed if ticked
  app.post<IdRoute>('/dashboard/files/:id/release', onlySignedIn, async (req, reply) => {
    if (!signed(req).owner) throw DomainError.notFound('page', req.url);
    const add = req.body?.addSender === 'yes';
    return act(req, reply, req.params.id, { key: add ? 'file.releasedAdded' : 'file.released' }, async () => {
      await recordedChange(
        c,
        req,
        () => c.importActions.release(signed(req).scope, req.params.id, add),
        (r) => ({ scope: signed(req).scope, action: 'import.released', target: r.id, detail: { filename: r.filename, sender: r.sender, addSender: add } }),
      );
    });
  });

  app.post<{ Body: Form }>('/dashboard/settings/senders', onlySignedIn, async (req, reply) => {
    if (!signed(req).owner) throw DomainError.notFound('page', req.url);
    const senders = (req.body?.senders ?? '').split(/[\s,;]+/).filter(Boolean);
    try {
      await recordedChange(
        c,
        req,
        () => c.senderPolicies.set(signed(req).scope, { policy: req.body?.policy, senders }),
        (p) => ({ scope: signed(req).scope, action: 'senders.changed', detail: { policy: p.policy, senders: p.senders } }),
      );
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'invalid')
        return redirectWith(c.users, req, reply, '/dashboard/settings#senders-title', { error: { text: e.detail } });
      throw e;
    }
    return redirectWith(c.users, req, reply, '/dashboard/settings#senders-title', { notice: { key: 'settings.sendersSaved' } });
  });

  app.post<IdRoute>('/dashboard/files/:id/discard', onlySignedIn, async (req, reply) => {
    if (req.body?.confirm !== 'yes') return back(req, reply, req.params.id, { error: { key: 'file.tickDiscard' } });
    await recordedChange(
      c,
      req,
      () => c.importActions.discard(signed(req).scope, req.params.id),
      () => ({ scope: signed(req).scope, action: 'import.discarded', target: req.params.id }),
    ).catch((e) => {
      if (!(e instanceof DomainError && e.kind === 'conflict')) throw e;
    });
    return redirectWith(c.users, req, reply, '/dashboard/files', { notice: { key: 'files.discarded' } });
  });

  // the drop zone: one request per file, the PDF as the body, its name in X-Filename
  app.post<{ Body: Buffer }>('/dashboard/upload', onlySignedIn, async (req, reply) => {
    // the drop zone's fetch reads these JSON error bodies (sendError: a page only for Accept: text/html)
    const name = fileNameFromHeader(req.headers['x-filename']);
    if (name instanceof ApiError) return sendError(reply, name);
    if (!Buffer.isBuffer(req.body)) return sendError(reply, ApiError.badRequest('Send the PDF as the body, as application/pdf'));
    const { scope, email } = signed(req);
    const record = await c.intake.receive({ scope, channel: 'http', sender: `dashboard:${email}`, filename: name, bytes: req.body, traceId: req.id });
    return reply.code(202).send({ id: record.id, status: record.status, reason: reasonWords(req.t, req.fmt, record) });
  });

  app.post<{ Params: { mode: string }; Body: Form }>('/dashboard/settings/keys/:mode', allowed('rotateKeys'), async (req, reply) => {
    const { mode } = req.params;
    if (mode !== 'live' && mode !== 'test') throw DomainError.notFound('key', mode);
    if (req.body?.confirm !== 'yes')
      return redirectWith(c.users, req, reply, '/dashboard/settings', { error: { key: 'settings.tickRotate', params: { mode } } });
    const key = await recordedChange(
      c,
      req,
      () => c.accounts.rotateKey(signed(req).scope.accountId, mode),
      () => ({ scope: { accountId: signed(req).scope.accountId, mode }, action: 'api_key.rotated', target: mode, detail: { via: 'dashboard' } }),
    );
    req.log.info({ mode, userId: signed(req).userId }, 'API key rotated from the dashboard');
    // held in the session for the next view only: a reload of that page never rotates again
    return redirectWith(c.users, req, reply, '/dashboard/settings#new-key-title', { newKey: { mode, key } });
  });

  // upload keys (issue 44): an owner's; the new key is held in the session for the next view only
  const byPerson = (req: FastifyRequest) => ({ actor: requestActor(req), address: req.ip });
  const keysSection = '/dashboard/settings#upload-keys-title';
  app.post<{ Body: Form }>('/dashboard/settings/upload-keys', allowed('manageUploadKeys'), async (req, reply) => {
    const networks = (req.body?.networks ?? '').split(/[\s,;]+/).filter(Boolean);
    try {
      const made = await c.uploadKeys.create(signed(req).scope, byPerson(req), req.body?.name, networks);
      return redirectWith(c.users, req, reply, '/dashboard/settings#new-upload-key-title', { newUploadKey: { name: made.name, key: made.key } });
    } catch (e) {
      if (e instanceof DomainError && e.kind === 'invalid') return redirectWith(c.users, req, reply, keysSection, { error: { text: e.detail } });
      throw e;
    }
  });
  app.post<IdRoute>('/dashboard/settings/upload-keys/:id/revoke', allowed('manageUploadKeys'), async (req, reply) => {
    const revoked = await c.uploadKeys.revoke(signed(req).scope, byPerson(req), req.params.id);
    return redirectWith(c.users, req, reply, keysSection, { notice: { key: 'settings.uploadKeyRevoked', params: { name: revoked.name } } });
  });

  app.post<{ Body: Form }>('/dashboard/mode', onlySignedIn, async (req, reply) => {
    const mode = req.body?.mode;
    if (mode === 'live' || mode === 'test') await c.users.setMode(signed(req).token, mode);
    const to = req.body?.back;
    return reply.redirect(to && /^\/dashboard(\/[\w/-]*)?$/.test(to) ? to : '/dashboard', 303);
  });
}
