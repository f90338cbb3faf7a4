// A method a path does not support gets 405 with `Allow`; an unknown path (or a route that found
// nothing, e.g. a missing static file) gets 404.
import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError } from '../api-error.ts';
import { sendError } from '../error-handler.ts';

export function registerMethodNotAllowed(app: FastifyInstance): void {
  const router = FindMyWay({ ignoreTrailingSlash: true });
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      methods.add(m);
      router.on(m as HTTPMethod, route.url, () => {});
    }
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allowed = [...methods].filter((m) => router.find(m as HTTPMethod, path));
    // the method matched a route that found nothing (a missing static file): not a 405
    const routed = allowed.includes(req.method) || (req.method === 'HEAD' && allowed.includes('GET'));
    if (allowed.length === 0 || routed) return sendError(reply, new ApiError(404, `No resource at ${path}`));
    if (allowed.includes('GET')) allowed.push('HEAD');
    return sendError(
      reply,
      new ApiError(405, `Method ${req.method} is not allowed on ${path}; use ${allowed.join(', ')}`, undefined, { allow: allowed.join(', ') }),
    );
  });
}
