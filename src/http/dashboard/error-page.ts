// Error pages for people: a browser (Accept: text/html) that meets an error anywhere outside the
// API gets a page in the dashboard's layout and language instead of JSON; /v2 and /admin answer
// JSON as their specs say. Rendered with its own Eta over the dashboard's views, so it works in
// the root error and not-found handlers, outside the dashboard's plugin.
import path from 'node:path';
import { Eta } from 'eta';
import type { FastifyRequest } from 'fastify';
import { formatter, negotiate, translator, LANGUAGES } from './i18n/i18n.ts';

const eta = new Eta({ autoEscape: true, views: path.join(import.meta.dirname, 'views') });

/** A person's browser asking for a page, not an API client. */
export function wantsHtmlError(req: FastifyRequest): boolean {
  const path = req.url.split('?')[0];
  if (path.startsWith('/v2/') || path === '/v2' || path.startsWith('/admin/') || path === '/admin') return false;
  return /\btext\/html\b/.test(String(req.headers.accept ?? ''));
}

/** What the signed-out layout needs, in the browser's language (or the one chosen on the sign-in page). */
function pageData(req: FastifyRequest) {
  const cookie = /(?:^|;\s*)ii_lang=(\w+)/.exec(String(req.headers.cookie ?? ''))?.[1];
  const { lang, locale } = negotiate(cookie, req.headers['accept-language']);
  return {
    csrf: '',
    signed: null,
    path: '',
    lang,
    languages: LANGUAGES,
    t: translator(lang),
    fmt: formatter(locale, 'UTC'),
    escape: (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`),
  };
}

/** GET /: what this service is, and where to go. */
export function homePage(req: FastifyRequest, links: { href: string; key: string }[]): string {
  const data = pageData(req);
  return eta.render('home.eta', { ...data, title: data.t('app.name'), links });
}

export function errorPage(req: FastifyRequest, status: number, detail?: string): string {
  const data = pageData(req);
  const t = data.t;
  const title = t(status === 403 ? 'error.refused' : status === 404 ? 'error.notFound' : status >= 500 ? 'error.broken' : 'error.cannot');
  const message = status === 404 ? t('error.notFoundText') : status >= 500 ? t('error.brokenText') : (detail ?? title);
  return eta.render('message.eta', { ...data, title, message, status });
}
