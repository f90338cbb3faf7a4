// GET /dashboard/events: server-sent events telling the received-files page that a file of the
// signed-in scope changed, so it fetches its rows again. Status changes come from this process's
// domain events; when the workers run elsewhere (no worker role here) a change is also announced
// every POLL_MS, so the page still follows files that other processes move.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../http-deps.ts';
import type { DomainEventMap } from '../../services/domain-events.ts';
import { onlySignedIn, signed } from './session.ts';

const HEARTBEAT_MS = 15_000;
const POLL_MS = 10_000;

export function liveUpdates(app: FastifyInstance, c: HttpDeps): void {
  const open = new Set<ServerResponse>();
  const workersHere = c.config.roles.includes('worker');
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });

  app.get('/dashboard/events', onlySignedIn, async (req, reply) => {
    const { scope } = signed(req);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const send = (data: object) => res.write(`event: change\ndata: ${JSON.stringify(data)}\n\n`);
    const onStatus = (e: DomainEventMap['intakeStatus']) => {
      if (e.scope.accountId === scope.accountId && e.scope.mode === scope.mode) send({ id: e.intakeId, status: e.status });
    };
    c.events.on('intakeStatus', onStatus);
    // an account disabled meanwhile ends the stream at the next heartbeat (its session opens nothing else already)
    const beat = async () => ((await c.accounts.isDisabled(scope.accountId).catch(() => false)) ? res.end() : res.write(': ping\n\n'));
    const timers = [setInterval(() => void beat(), HEARTBEAT_MS), ...(workersHere ? [] : [setInterval(() => send({}), POLL_MS)])];
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      c.events.off('intakeStatus', onStatus);
      timers.forEach(clearInterval);
    });
  });
}
