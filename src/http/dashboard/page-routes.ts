// The dashboard's pages, one mode at a time: overview, received files (and one file), invoices
// without a document, connection settings.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { fileReply } from '../file-responses.ts';
import { accountDetails } from '../resources/account/presenter.ts';
import { chartBars } from './format.ts';
import { renderSVG } from 'uqr';
import { MIN_PASSWORD_LENGTH } from '../../services/passwords.ts';
import { totpUri } from '../../services/second-factor.ts';
import { signedInPage, type Flash } from './flash.ts';
import { onlySignedIn, signed } from './session.ts';
import { fileActions } from './files-routes.ts';

type Query = Record<string, string | undefined>;

export async function pageRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const page = signedInPage(c.users);
  const account = (req: FastifyRequest) => c.accounts.get(signed(req).scope.accountId);

  app.get('/dashboard', page, async (req, reply) => {
    const { scope } = signed(req);
    const now = Date.now();
    const [day, week, held, failed, waiting] = await Promise.all([
      c.intake.counts(scope, new Date(now - 24 * 3_600_000)),
      c.intake.counts(scope, new Date(now - 7 * 24 * 3_600_000)),
      c.intake.search(scope, { status: 'held', limit: 10 }),
      c.intake.search(scope, { status: 'failed', limit: 10 }),
      c.intake.search(scope, { status: 'waiting', limit: 10 }),
    ]);
    return reply.view('overview.eta', {
      title: req.t('nav.overview'),
      account: await account(req),
      charts: [
        { id: 'day', label: 'overview.day', ...chartBars(day) },
        { id: 'week', label: 'overview.week', ...chartBars(week) },
      ],
      attention: [...held, ...failed, ...waiting],
    });
  });

  app.get<{ Params: { id: string }; Querystring: Query }>('/dashboard/files/:id', page, async (req, reply) => {
    const { scope } = signed(req);
    const file = await c.intake.get(scope, req.params.id);
    const invoice = file.invoiceId ? await c.invoices.get(scope, file.invoiceId).catch(() => undefined) : undefined;
    const [open, history] = await Promise.all([
      file.status === 'attached' ? [] : c.invoices.openWithoutDocument(scope, 200),
      c.intakeHistory.list(scope, file.id),
    ]);
    return reply.view('file.eta', {
      title: file.filename,
      account: await account(req),
      file,
      invoice,
      open,
      history,
      can: fileActions(file, await c.intake.content(scope, file.id), signed(req).owner),
    });
  });

  app.get<{ Params: { id: string } }>('/dashboard/files/:id/download', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const file = await c.intake.get(scope, req.params.id);
    const bytes = (await c.intake.content(scope, file.id)) ?? (file.documentId ? (await c.documents.content(scope, file.documentId)).bytes : undefined);
    if (!bytes) return reply.code(410).view('message.eta', { title: req.t('file.goneTitle'), message: req.t('file.gone', { name: file.filename }) });
    return fileReply(reply, 'application/pdf', file.filename).send(bytes);
  });

  app.get('/dashboard/invoices', page, async (req, reply) => {
    const invoices = await c.invoices.openWithoutDocument(signed(req).scope, 200);
    return reply.view('invoices.eta', { title: req.t('nav.invoices'), account: await account(req), invoices });
  });

  app.get('/dashboard/settings', page, async (req, reply) => reply.view('settings.eta', await settingsView(c, req, (reply.locals?.flash ?? {}) as Flash)));
}

/** The connection settings page's data, with the mode's webhooks and the person's second factor; a new key or a TOTP key being set up come from the flash. */
async function settingsView(c: HttpDeps, req: FastifyRequest, flash: Flash) {
  const { scope, userId } = signed(req);
  const [account, details, hints, hooks, secondFactor, codesLeft, senders] = await Promise.all([
    c.accounts.get(scope.accountId),
    accountDetails(c, scope, req.hostname),
    c.accounts.keyHints(scope.accountId),
    c.webhooks.list(scope, { limit: 100 }),
    c.users.hasSecondFactor(userId),
    c.users.recoveryCodesLeft(userId),
    c.senderPolicies.get(scope),
  ]);
  const [uploadKeys, keyUses] = await Promise.all([c.uploadKeys.list(scope), c.accounts.keyUses(scope)]);
  const uri = flash.totpSetup && totpUri(flash.totpSetup.secret, signed(req).email);
  const totpSetup = flash.totpSetup && uri ? { ...flash.totpSetup, uri, qr: renderSVG(uri, { border: 2 }) } : undefined;
  return {
    title: req.t('nav.settings'),
    account,
    details,
    hints,
    webhooks: hooks.items,
    secondFactor,
    newKey: flash.newKey,
    totpSetup,
    shown: flash.shown,
    recoveryCodes: flash.recoveryCodes,
    codesLeft,
    minPassword: MIN_PASSWORD_LENGTH,
    senders,
    uploadKeys,
    keyUses,
    newUploadKey: flash.newUploadKey,
  };
}
