// GET /: a person who opens the bare address finds the dashboard and the API's documentation on
// a page that reads well on a phone, not a JSON 404; and /favicon.ico, which browsers ask for.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { homePage } from '../dashboard/error-page.ts';

const FAVICON = readFileSync(path.join(import.meta.dirname, '../dashboard/assets/favicon.ico'));
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export const homeRoute: FastifyPluginAsync = async (app) => {
  app.get('/', { schema: { hide: true } }, (req, reply) => {
    const links = [
      { href: '/docs', key: 'docs' },
      { href: '/v2/openapi.json', key: 'openapi' },
    ];
    if (app.hasRoute({ method: 'GET', url: '/dashboard' })) links.unshift({ href: '/dashboard', key: 'dashboard' });
    return reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(homePage(req, links));
  });
  app.get('/favicon.ico', { schema: { hide: true } }, (_req, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );
};
