// The account holder's dashboard at /dashboard: server-rendered pages (@fastify/view + eta,
// htmx for the live parts), its own cookie session and CSRF protection, a strict CSP, and its
// assets served from this package (no internet at run time). See docs/dashboard.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import { secretFile } from '../../platform/admin-token.ts';
import { toApiError } from '../error-handler.ts';
import { actionRoutes } from './action-routes.ts';
import { uploadKeyRoutes } from './upload-key-routes.ts';
import { authRoutes } from './auth-routes.ts';
import { translator } from './i18n/i18n.ts';
import { filesRoutes } from './files-routes.ts';
import { invoiceRoutes } from './invoice-routes.ts';
import { peopleRoutes } from './people-routes.ts';
import { resetRoutes } from './reset-routes.ts';
import { localeLocals, localeRoutes, resolveLocale } from './locale.ts';
import { liveUpdates } from './live-updates.ts';
import { pageRoutes } from './page-routes.ts';
import { NotYourRole, permissions } from './roles.ts';
import { secondFactorRoutes } from './second-factor-routes.ts';
import { trailRoutes } from './trail-routes.ts';
import { COOKIE_PATH, loadSession } from './session.ts';

declare module 'fastify' {
  interface FastifyReply {
    /** @fastify/view merges these into every template's data */
    locals?: Record<string, unknown>;
  }
}

const here = import.meta.dirname;
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const ASSETS: Record<string, { file: string; type: string }> = {
  'htmx.min.js': { file: createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript' },
  'dashboard.js': { file: path.join(here, 'assets', 'dashboard.js'), type: 'text/javascript' },
  'dashboard.css': { file: path.join(here, 'assets', 'dashboard.css'), type: 'text/css' },
  'favicon.svg': { file: path.join(here, 'assets', 'favicon.svg'), type: 'image/svg+xml' },
};

export const dashboard =
  (c: HttpDeps): FastifyPluginAsync =>
  async (app) => {
    const secret = c.config.dashboardSecret ?? secretFile(path.resolve(c.config.dataDir, 'dashboard-secret'));
    // every cookie of the dashboard is Secure when PUBLIC_URL is https (TLS may end at a proxy this
    // process cannot see), else when the request itself came over HTTPS
    await app.register(cookie, { secret, parseOptions: { secure: c.config.links.https || 'auto' } });
    await app.register(csrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: 'ii_csrf',
      cookieOpts: { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', signed: true },
    });
    await app.register(view, { engine: { eta: new Eta({ autoEscape: true }) }, root: path.join(here, 'views') });

    app.addHook('onRequest', async (_req, reply) => {
      reply.headers({
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
      });
    });
    app.addHook('onRequest', loadSession(c.users));
    app.addHook('onRequest', resolveLocale);
    // every state-changing request carries the CSRF token (form field _csrf or header x-csrf-token);
    // checked once the body is parsed
    app.addHook('preHandler', (req, reply, done) => (req.method === 'GET' || req.method === 'HEAD' ? done() : app.csrfProtection(req, reply, done)));
    // the token and who is signed in, for every page's layout
    app.addHook('preHandler', async (req, reply) => {
      reply.locals = { csrf: reply.generateCsrf(), signed: req.signed, may: permissions(req.signed), path: req.url.split('?')[0], ...localeLocals(req) };
    });
    app.setErrorHandler((err, req, reply) => {
      const e = toApiError(err, req);
      const t = req.t ?? translator('en');
      const title = t(e.status === 403 ? 'error.refused' : e.status === 404 ? 'error.notFound' : e.status >= 500 ? 'error.broken' : 'error.cannot');
      const message =
        err instanceof NotYourRole ? t('error.ownersOnly') : e.status === 403 ? t('error.csrf') : e.status >= 500 ? t('error.brokenText') : e.detail;
      return reply
        .code(e.status)
        .header('content-type', 'text/html; charset=utf-8')
        .view('message.eta', { title, message, status: e.status, csrf: '', signed: req.signed, may: permissions(req.signed), path: '', ...localeLocals(req) });
    });
    app.addContentTypeParser('application/pdf', { parseAs: 'buffer', bodyLimit: 6 * 1024 * 1024 }, (_req, body, done) => done(null, body));

    const assets = new Map(Object.entries(ASSETS).map(([name, a]) => [name, { body: readFileSync(a.file), type: a.type }]));
    app.get<{ Params: { name: string } }>('/dashboard/assets/:name', async (req, reply) => {
      const asset = assets.get(req.params.name);
      if (!asset) return reply.code(404).type('text/plain').send('Not found');
      return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
    });
    await authRoutes(app, c);
    await pageRoutes(app, c);
    await actionRoutes(app, c);
    await uploadKeyRoutes(app, c);
    await secondFactorRoutes(app, c);
    await localeRoutes(app, c);
    await filesRoutes(app, c);
    await invoiceRoutes(app, c);
    await peopleRoutes(app, c);
    await trailRoutes(app, c);
    await resetRoutes(app, c);
    formAddresses(app);
    liveUpdates(app, c);
  };

// A form's address opened with GET (a bookmark, a reload after the browser dropped the POST,
// a typed URL) leads to the page the form is on, never to an error.
const FORM_PAGES: [string, (p: Record<string, string>) => string][] = [
  ['/dashboard/files/:id/retry', (p) => `/dashboard/files/${encodeURIComponent(p.id)}`],
  ['/dashboard/files/:id/assign', (p) => `/dashboard/files/${encodeURIComponent(p.id)}`],
  ['/dashboard/files/:id/discard', (p) => `/dashboard/files/${encodeURIComponent(p.id)}`],
  ['/dashboard/files/:id/release', (p) => `/dashboard/files/${encodeURIComponent(p.id)}`],
  ['/dashboard/upload', () => '/dashboard/files'],
  ['/dashboard/files/bulk', () => '/dashboard/files'],
  ['/dashboard/people/:id/remove', () => '/dashboard/people'],
  ['/dashboard/people/:id/role', () => '/dashboard/people'],
  ['/dashboard/settings/keys/:mode', () => '/dashboard/settings'],
  ['/dashboard/settings/upload-keys', () => '/dashboard/settings'],
  ['/dashboard/settings/senders', () => '/dashboard/settings'],
  ['/dashboard/settings/upload-keys/:id/revoke', () => '/dashboard/settings'],
  ['/dashboard/settings/upload-keys/:id/ssh-keys', (p) => `/dashboard/settings/upload-keys/${encodeURIComponent(p.id)}`],
  ['/dashboard/settings/upload-keys/:id/ssh-keys/:sshId/remove', (p) => `/dashboard/settings/upload-keys/${encodeURIComponent(p.id)}`],
  ['/dashboard/settings/second-factor', () => '/dashboard/settings'],
  ['/dashboard/settings/password', () => '/dashboard/settings'],
  ['/dashboard/settings/second-factor/setup', () => '/dashboard/settings'],
  ['/dashboard/settings/second-factor/off', () => '/dashboard/settings'],
  ['/dashboard/mode', () => '/dashboard'],
  ['/dashboard/language', () => '/dashboard'],
  ['/dashboard/time-zone', () => '/dashboard'],
  ['/dashboard/sign-out', () => '/dashboard'],
];

function formAddresses(app: FastifyInstance) {
  for (const [route, page] of FORM_PAGES) app.get<{ Params: Record<string, string> }>(route, async (req, reply) => reply.redirect(page(req.params), 303));
}
