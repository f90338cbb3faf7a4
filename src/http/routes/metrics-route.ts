// GET /metrics (Prometheus text) and the HTTP request metrics of every route of the server.
// Registered through ServerOptions.plugins, it skips Fastify's encapsulation so that its hooks
// see every route of the server, not only its own.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { bearerGuard } from '../plugins/admin-auth.ts';
import type { Metrics } from '../../ops/metrics.ts';

export function metricsPlugin(metrics: Metrics, token?: string): FastifyPluginAsync {
  const plugin = async (app: FastifyInstance) => {
    app.addHook('onResponse', (req, reply, done) => {
      // the route pattern, never the raw URL (ids would explode the series); unrouted: one label
      metrics.http.observe(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    const guard = token ? bearerGuard(token, 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>') : undefined;
    app.get('/metrics', { schema: { hide: true }, ...(guard ? { onRequest: guard } : {}) }, async (_req, reply) => {
      const text = await metrics.text();
      return reply.type(metrics.contentType).send(text);
    });
  };
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;
  return plugin;
}
