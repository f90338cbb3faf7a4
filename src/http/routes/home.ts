// GET /: a person who opens the bare address finds the API's documentation and the dashboard,
// not a JSON 404.
import type { FastifyPluginAsync } from 'fastify';

export const homeRoute: FastifyPluginAsync = async (app) => {
  app.get('/', { schema: { hide: true } }, (_req, reply) => {
    const links: [string, string][] = [
      ['/docs', 'API documentation (try the API in the browser)'],
      ['/v2/openapi.json', 'OpenAPI document of the API'],
    ];
    if (app.hasRoute({ method: 'GET', url: '/dashboard' })) links.unshift(['/dashboard', 'Dashboard: your files, invoices and keys']);
    const items = links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('');
    return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>invoice-intake</title></head><body><h1>invoice-intake</h1><ul>${items}</ul></body></html>`);
  });
};
