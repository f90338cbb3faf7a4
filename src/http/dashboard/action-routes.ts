// What a signed-in person changes: retry, assign or discard a received file, upload PDFs (the
// same intake as every channel), rotate a key, switch between live and test. Plain forms that
// answer with a redirect (they work without JavaScript); the upload is a fetch from the drop zone.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { DomainError } from '../../domain/errors.ts';
import { settingsView } from './page-routes.ts';
import { onlySignedIn, signed } from './session.ts';

type Form = Record<string, string | undefined>;
type IdRoute = { Params: { id: string }; Body: Form };
const back = (reply: FastifyReply, id: string, outcome: { done?: string; error?: string }) =>
  reply.redirect(`/dashboard/files/${encodeURIComponent(id)}?${new URLSearchParams(outcome as Record<string, string>)}`, 303);

/** A refusal the person can act on goes back to the file's page; not-found and gone stay errors. */
async function act(reply: FastifyReply, id: string, done: string, fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (e) {
    if (e instanceof DomainError && (e.kind === 'conflict' || e.kind === 'unprocessable' || (e.kind === 'not_found' && e.field === 'invoice'))) return back(reply, id, { error: e.detail });
    throw e;
  }
  return back(reply, id, { done });
}

export async function actionRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {

  app.post<IdRoute>('/dashboard/files/:id/retry', onlySignedIn, async (req, reply) =>
    act(reply, req.params.id, 'The file is being matched again.', () => c.importActions.retry(signed(req).scope, req.params.id)));

  app.post<IdRoute>('/dashboard/files/:id/assign', onlySignedIn, async (req, reply) => {
    const invoice = req.body?.invoice?.trim();
    if (!invoice) return back(reply, req.params.id, { error: 'Enter an invoice number.' });
    return act(reply, req.params.id, `Attached to invoice ${invoice}.`, () => c.importActions.attach(signed(req).scope, req.params.id, invoice));
  });

  app.post<IdRoute>('/dashboard/files/:id/discard', onlySignedIn, async (req, reply) => {
    if (req.body?.confirm !== 'yes') return back(reply, req.params.id, { error: 'Tick the box to confirm that the file should be discarded.' });
    await c.importActions.discard(signed(req).scope, req.params.id).catch((e) => {
      if (!(e instanceof DomainError && e.kind === 'conflict')) throw e;
    });
    return reply.redirect('/dashboard/files?discarded=1', 303);
  });

  // the drop zone: one request per file, the PDF as the body, its name in X-Filename
  app.post<{ Body: Buffer }>('/dashboard/upload', onlySignedIn, async (req, reply) => {
    const name = decodeURIComponent(String(req.headers['x-filename'] ?? '')).slice(0, 250);
    if (!Buffer.isBuffer(req.body) || !name) return reply.code(400).send({ error: 'Send a PDF as the body with its name in X-Filename' });
    const { scope, email } = signed(req);
    const record = await c.intake.receive({ scope, channel: 'http', sender: `dashboard:${email}`, filename: name, bytes: req.body, traceId: req.id });
    return reply.code(202).send({ id: record.id, status: record.status, reason: record.reason });
  });

  app.post<{ Params: { mode: string }; Body: Form }>('/dashboard/settings/keys/:mode', onlySignedIn, async (req, reply) => {
    const { mode } = req.params;
    if (mode !== 'live' && mode !== 'test') return reply.code(404).view('message.eta', { title: 'Not found', message: 'No such key.' });
    if (req.body?.confirm !== 'yes') return reply.code(400).view('settings.eta', await settingsView(c, req, { error: `Tick the box to confirm: the current ${mode} key stops working at once.` }));
    const key = await c.accounts.rotateKey(signed(req).scope.accountId, mode);
    req.log.info({ mode, userId: signed(req).userId }, 'API key rotated from the dashboard');
    // rendered, not redirected: the key is shown on this one page and stored nowhere
    return reply.view('settings.eta', await settingsView(c, req, { newKey: { mode, key } }));
  });

  app.post<{ Body: Form }>('/dashboard/mode', onlySignedIn, async (req, reply) => {
    const mode = req.body?.mode;
    if (mode === 'live' || mode === 'test') await c.users.setMode(signed(req).token, mode);
    const to = req.body?.back;
    return reply.redirect(to && /^\/dashboard(\/[\w/-]*)?$/.test(to) ? to : '/dashboard', 303);
  });
}
