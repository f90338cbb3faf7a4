// The dashboard's pages, one mode at a time: overview, received files (and one file), invoices
// without a document, connection settings.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import type { IntakeChannel, IntakeFilter, IntakeStatus } from '../../domain/intake.ts';
import { contentDisposition } from '../routes/documents.ts';
import { accountDetails } from '../routes/account.ts';
import { CHANNELS, chartBars, STATUSES } from './format.ts';
import { onlySignedIn, signed } from './session.ts';

type Query = Record<string, string | undefined>;
const PERIODS: Record<string, number> = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24 };
const LIST_LIMIT = 100;

/** The list's filter from the query; anything unknown is ignored. */
function filterOf(q: Query): { filter: IntakeFilter; values: Query } {
  const status = STATUSES.includes(q.status as IntakeStatus) ? (q.status as IntakeStatus) : undefined;
  const channel = CHANNELS.includes(q.channel as IntakeChannel) ? (q.channel as IntakeChannel) : undefined;
  const period = q.period && PERIODS[q.period] ? q.period : undefined;
  const text = q.q?.trim().slice(0, 100) || undefined;
  return {
    filter: { status, channel, text, since: period ? new Date(Date.now() - PERIODS[period] * 3_600_000) : undefined, limit: LIST_LIMIT },
    values: { status, channel, period, q: text },
  };
}

const queryString = (values: Query) => new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => Boolean(e[1]))).toString();

export async function pageRoutes(app: FastifyInstance, c: HttpDeps): Promise<void> {
  const account = (req: FastifyRequest) => c.accounts.get(signed(req).scope.accountId);

  app.get('/dashboard', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const now = Date.now();
    const [day, week, failed, waiting] = await Promise.all([
      c.intake.counts(scope, new Date(now - 24 * 3_600_000)),
      c.intake.counts(scope, new Date(now - 7 * 24 * 3_600_000)),
      c.intake.search(scope, { status: 'failed', limit: 10 }),
      c.intake.search(scope, { status: 'waiting', limit: 10 }),
    ]);
    return reply.view('overview.eta', { title: 'Overview', account: await account(req), charts: [{ id: 'day', label: 'Last 24 hours', ...chartBars(day) }, { id: 'week', label: 'Last 7 days', ...chartBars(week) }], attention: [...failed, ...waiting] });
  });

  app.get<{ Querystring: Query }>('/dashboard/files', onlySignedIn, async (req, reply) => {
    const { filter, values } = filterOf(req.query);
    const files = await c.intake.search(signed(req).scope, filter);
    return reply.view('files.eta', { title: 'Received files', account: await account(req), files, values, discarded: req.query.discarded === '1', query: queryString(values), limit: LIST_LIMIT, statuses: STATUSES, channels: CHANNELS });
  });

  // the rows alone: what the live update (and the filters, with htmx) swap in
  app.get<{ Querystring: Query }>('/dashboard/files/rows', onlySignedIn, async (req, reply) => {
    const files = await c.intake.search(signed(req).scope, filterOf(req.query).filter);
    return reply.view('file-rows.eta', { files });
  });

  app.get<{ Params: { id: string }; Querystring: Query }>('/dashboard/files/:id', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const file = await c.intake.get(scope, req.params.id);
    const invoice = file.invoiceId ? await c.invoices.get(scope, file.invoiceId).catch(() => undefined) : undefined;
    const [open, history] = await Promise.all([file.status === 'attached' ? [] : c.invoices.openWithoutDocument(scope, 200), c.intakeHistory.list(scope, file.id)]);
    return reply.view('file.eta', { title: file.filename, account: await account(req), file, invoice, open, history, done: req.query.done, error: req.query.error });
  });

  app.get<{ Params: { id: string } }>('/dashboard/files/:id/download', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    const file = await c.intake.get(scope, req.params.id);
    const bytes = (await c.intake.content(scope, file.id)) ?? (file.documentId ? (await c.documents.content(scope, file.documentId)).bytes : undefined);
    if (!bytes) return reply.code(410).view('message.eta', { title: 'File no longer kept', message: `The bytes of ${file.filename} are no longer stored (refused on arrival, or past the retention period).` });
    return reply.type('application/pdf').header('content-disposition', contentDisposition(file.filename, 'attachment')).send(bytes);
  });

  app.get('/dashboard/invoices', onlySignedIn, async (req, reply) => {
    const invoices = await c.invoices.openWithoutDocument(signed(req).scope, 200);
    return reply.view('invoices.eta', { title: 'Invoices without a document', account: await account(req), invoices });
  });

  app.get<{ Querystring: Query }>('/dashboard/settings', onlySignedIn, async (req, reply) => reply.view('settings.eta', await settingsView(c, req, { done: req.query.done })));
}

/** What the settings page shows once: a new key right after its rotation, a second factor being set up. */
export interface SettingsExtra {
  newKey?: { mode: string; key: string };
  totpSetup?: { secret: string; uri: string; qr: string; error?: string };
  error?: string;
  done?: string;
}

/** The connection settings page's data, with the mode's webhooks and the person's second factor. */
export async function settingsView(c: HttpDeps, req: FastifyRequest, extra: SettingsExtra = {}) {
  const { scope, userId } = signed(req);
  const [account, details, hints, hooks, secondFactor] = await Promise.all([
    c.accounts.get(scope.accountId), accountDetails(c, scope, req.hostname), c.accounts.keyHints(scope.accountId),
    c.webhooks.list(scope, { limit: 100 }), c.users.hasSecondFactor(userId),
  ]);
  return { title: 'Connection settings', account, details, hints, webhooks: hooks.items, secondFactor, ...extra };
}
